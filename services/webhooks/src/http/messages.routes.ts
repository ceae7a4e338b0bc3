import type { Express, Request, Response } from 'express';
import { parse, type Logger } from '@kith/platform';
import { editSchema, executeSchema } from '../domain/message.input.js';
import type { MessagesService } from '../domain/messages.service.js';
import type { WebhooksService } from '../domain/webhooks.service.js';
import { executeQuery, messageParams, messageQuery } from './schemas.js';
import { webhookOf } from './webhooks.routes.js';

/** Execute Webhook and the webhook's messages, all by token. */
export function messageRoutes(app: Express, webhooks: WebhooksService, messages: MessagesService, logger: Logger): void {
  app.post('/webhooks/:webhookId/:token', async (req: Request, res: Response) => {
    const webhook = await webhookOf(webhooks, req);
    const query = parse(executeQuery, req.query);
    const input = parse(executeSchema, req.body);
    const prepared = await messages.prepare(webhook, input, { threadId: query.thread_id, withComponents: query.with_components ?? false });
    if (query.wait) return void res.json(await prepared.commit());
    // Without `wait` the answer does not wait for the message to be saved (the platform's 204).
    res.status(204).end();
    prepared.commit().catch((err: unknown) => logger.warn({ err, webhook_id: webhook.id }, 'webhook message not saved'));
  });

  app.get('/webhooks/:webhookId/:token/messages/:messageId', async (req: Request, res: Response) => {
    const webhook = await webhookOf(webhooks, req);
    const { messageId } = parse(messageParams, req.params);
    const { thread_id } = parse(messageQuery, req.query);
    res.json(await messages.get(webhook, messageId, thread_id));
  });

  app.patch('/webhooks/:webhookId/:token/messages/:messageId', async (req: Request, res: Response) => {
    const webhook = await webhookOf(webhooks, req);
    const { messageId } = parse(messageParams, req.params);
    const query = parse(messageQuery, req.query);
    const input = parse(editSchema, req.body);
    res.json(await messages.edit(webhook, messageId, input, { threadId: query.thread_id, withComponents: query.with_components ?? false }));
  });

  app.delete('/webhooks/:webhookId/:token/messages/:messageId', async (req: Request, res: Response) => {
    const webhook = await webhookOf(webhooks, req);
    const { messageId } = parse(messageParams, req.params);
    const { thread_id } = parse(messageQuery, req.query);
    await messages.delete(webhook, messageId, thread_id);
    res.status(204).end();
  });
}
