import type { Express, Request, Response } from 'express';
import { parse, type Logger } from '@kith/platform';
import type { AttachmentsService, UploadedFile } from '../domain/attachments.service.js';
import { editSchema, executeSchema } from '../domain/message.input.js';
import type { MessagesService } from '../domain/messages.service.js';
import type { WebhookRecord } from '../domain/webhook.types.js';
import type { WebhooksService } from '../domain/webhooks.service.js';
import type { JsonBodies } from './json.body.js';
import { isMultipart, readMultipart, type MultipartLimits } from './multipart.js';
import { executeQuery, messageParams, messageQuery } from './schemas.js';
import { executingWebhookOf, webhookOf } from './webhooks.routes.js';

export interface MessageRouteDeps {
  webhooks: WebhooksService;
  messages: MessagesService;
  attachments: AttachmentsService;
  limits: MultipartLimits;
  bodies: JsonBodies;
  logger: Logger;
}

/** Execute Webhook and the webhook's messages, all by token, with JSON or multipart bodies. */
export function messageRoutes(app: Express, deps: MessageRouteDeps): void {
  const { webhooks, messages, attachments, logger } = deps;

  /** The request's JSON, or its multipart form with the files stored (the token was checked first). */
  async function bodyOf(req: Request, res: Response, webhook: WebhookRecord): Promise<{ payload: unknown; files: UploadedFile[] }> {
    if (!isMultipart(req)) {
      await deps.bodies.read(req, res);
      return { payload: req.body, files: [] };
    }
    return readMultipart(
      req,
      deps.limits,
      (file) => attachments.upload(webhook.channelId, file),
      (files) => attachments.discard(files),
    );
  }

  /** Runs `work`; if it fails, the files the request stored are removed again. */
  async function keepingFiles<T>(files: UploadedFile[], work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      await attachments.discard(files).catch((e: unknown) => logger.warn({ err: e }, 'could not remove the files of a refused request'));
      throw err;
    }
  }

  app.post('/webhooks/:webhookId/:token', async (req: Request, res: Response) => {
    const webhook = await executingWebhookOf(webhooks, req);
    const query = parse(executeQuery, req.query);
    const { payload, files } = await bodyOf(req, res, webhook);
    const prepared = await keepingFiles(files, async () =>
      messages.prepare(webhook, parse(executeSchema, payload), {
        threadId: query.thread_id,
        withComponents: query.with_components ?? false,
        files,
      }),
    );
    if (query.wait) return void res.json(await keepingFiles(files, () => prepared.commit()));
    // Without `wait` the answer does not wait for the message to be saved (the platform's 204).
    res.status(204).end();
    prepared.commit().catch(async (err: unknown) => {
      logger.warn({ err, webhook_id: webhook.id }, 'webhook message not saved');
      // No message holds its files: they go too.
      await attachments.discard(files).catch((e: unknown) => logger.warn({ err: e }, 'could not remove the files of an unsaved message'));
    });
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
    const { payload, files } = await bodyOf(req, res, webhook);
    const edited = await keepingFiles(files, () =>
      messages.edit(webhook, messageId, parse(editSchema, payload), {
        threadId: query.thread_id,
        withComponents: query.with_components ?? false,
        files,
      }),
    );
    res.json(edited);
  });

  app.delete('/webhooks/:webhookId/:token/messages/:messageId', async (req: Request, res: Response) => {
    const webhook = await webhookOf(webhooks, req);
    const { messageId } = parse(messageParams, req.params);
    const { thread_id } = parse(messageQuery, req.query);
    await messages.delete(webhook, messageId, thread_id);
    res.status(204).end();
  });
}
