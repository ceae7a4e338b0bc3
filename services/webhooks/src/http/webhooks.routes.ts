import type { Express, Request, Response } from 'express';
import { ApiError, parse, userIdOf } from '@kith/platform';
import { TOKEN_PATTERN } from '../domain/webhook.token.js';
import type { WebhooksService } from '../domain/webhooks.service.js';
import { channelParams, createWebhookBody, followBody, guildParams, modifyWebhookBody, webhookParams } from './schemas.js';

/** The webhook id of the path (a 50035 when it is not a snowflake). */
export const webhookIdOf = (req: Request): string => parse(webhookParams, req.params).webhookId;

/** The token of the path: one that cannot be a token is refused without a lookup. */
export function tokenOf(req: Request): string {
  const token = String(req.params.token ?? '');
  if (!TOKEN_PATTERN.test(token)) throw ApiError.of('INVALID_WEBHOOK_TOKEN');
  return token;
}

/** The webhook of the path whose token the path holds (10015, 50027 otherwise). */
export const webhookOf = (webhooks: WebhooksService, req: Request) => webhooks.withToken(webhookIdOf(req), tokenOf(req));
/** `webhookOf` for an execution: possibly remembered, checked again when the message is saved. */
export const executingWebhookOf = (webhooks: WebhooksService, req: Request) => webhooks.forExecution(webhookIdOf(req), tokenOf(req));

const patchOf = (body: ReturnType<typeof modifyWebhookBody.parse>) => ({
  ...(body.name !== undefined ? { name: body.name } : {}),
  ...(body.avatar !== undefined ? { avatar: body.avatar } : {}),
  ...(body.channel_id !== undefined ? { channelId: body.channel_id } : {}),
});

/** Webhooks by channel, by guild, by id (a user who may manage them) and by token (no user). */
export function webhookRoutes(app: Express, webhooks: WebhooksService): void {
  app.post('/channels/:channelId/webhooks', async (req: Request, res: Response) => {
    const userId = userIdOf(res);
    const { channelId } = parse(channelParams, req.params);
    const body = parse(createWebhookBody, req.body);
    res.json(await webhooks.create(userId, channelId, { name: body.name, ...(body.avatar !== undefined ? { avatar: body.avatar } : {}) }));
  });

  // Follow Channel: the webhook it makes is this service's, so the route is too.
  app.post('/channels/:channelId/followers', async (req: Request, res: Response) => {
    const userId = userIdOf(res);
    const { channelId } = parse(channelParams, req.params);
    const body = parse(followBody, req.body);
    res.json(await webhooks.follow(userId, channelId, body.webhook_channel_id));
  });

  app.get('/channels/:channelId/webhooks', async (req: Request, res: Response) => {
    const userId = userIdOf(res);
    res.json(await webhooks.listChannel(userId, parse(channelParams, req.params).channelId));
  });

  app.get('/guilds/:guildId/webhooks', async (req: Request, res: Response) => {
    const userId = userIdOf(res);
    res.json(await webhooks.listGuild(userId, parse(guildParams, req.params).guildId));
  });

  app.get('/webhooks/:webhookId', async (req: Request, res: Response) => {
    const userId = userIdOf(res);
    res.json(await webhooks.get(userId, webhookIdOf(req)));
  });

  app.patch('/webhooks/:webhookId', async (req: Request, res: Response) => {
    const userId = userIdOf(res);
    const id = webhookIdOf(req);
    res.json(await webhooks.modify(userId, id, patchOf(parse(modifyWebhookBody, req.body))));
  });

  app.delete('/webhooks/:webhookId', async (req: Request, res: Response) => {
    const userId = userIdOf(res);
    await webhooks.delete(userId, webhookIdOf(req));
    res.status(204).end();
  });

  // The token is checked before the body is read: a wrong token is a 50027 whatever it sends.
  app.get('/webhooks/:webhookId/:token', async (req: Request, res: Response) => {
    res.json(await webhooks.getWithToken(await webhookOf(webhooks, req)));
  });

  app.patch('/webhooks/:webhookId/:token', async (req: Request, res: Response) => {
    const webhook = await webhookOf(webhooks, req);
    res.json(await webhooks.modifyWithToken(webhook, patchOf(parse(modifyWebhookBody, req.body))));
  });

  app.delete('/webhooks/:webhookId/:token', async (req: Request, res: Response) => {
    await webhooks.deleteWithToken(await webhookOf(webhooks, req));
    res.status(204).end();
  });
}
