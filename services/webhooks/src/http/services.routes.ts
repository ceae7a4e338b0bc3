import type { Express, Request, Response } from 'express';
import { ApiError, parse, type Logger } from '@kith/platform';
import { renderGithub } from '../domain/formats/github.format.js';
import { fromSlack, slackSchema } from '../domain/formats/slack.format.js';
import { executeSchema, type ExecuteInput } from '../domain/message.input.js';
import type { MessagesService } from '../domain/messages.service.js';
import type { WebhookRecord } from '../domain/webhook.types.js';
import type { WebhooksService } from '../domain/webhooks.service.js';
import type { JsonBodies } from './json.body.js';
import { executeQuery } from './schemas.js';
import { executingWebhookOf, webhookOf } from './webhooks.routes.js';

/** The services a webhook takes posts in the format of (the spec's chat_tool and code_host). */
const SERVICES = new Set(['slack', 'github']);

/** Both senders may post a form with the JSON in its `payload` field instead of a JSON body. */
function payloadOf(req: Request): unknown {
  const body = req.body as Record<string, unknown> | undefined;
  if (!/^application\/x-www-form-urlencoded\b/i.test(req.headers['content-type'] ?? '')) return body;
  if (typeof body?.payload !== 'string') return {};
  try {
    return JSON.parse(body.payload);
  } catch {
    throw ApiError.of('INVALID_JSON');
  }
}

/** Execute Service Webhook for the chat tool (Slack's incoming webhooks) and the code host (GitHub's deliveries). */
export function serviceRoutes(
  app: Express,
  deps: { webhooks: WebhooksService; messages: MessagesService; bodies: JsonBodies; logger: Logger },
): void {
  const { webhooks, messages, bodies, logger } = deps;
  async function post(req: Request, res: Response, webhook: WebhookRecord, input: ExecuteInput, answerWithoutWait: () => void) {
    const query = parse(executeQuery, req.query);
    const prepared = await messages.prepare(webhook, parse(executeSchema, input), { threadId: query.thread_id, service: true });
    if (query.wait) return void res.json(await prepared.commit());
    answerWithoutWait();
    prepared.commit().catch((err: unknown) => logger.warn({ err, webhook_id: webhook.id }, 'service webhook message not saved'));
  }

  app.get('/webhooks/:webhookId/:token/:service', async (req: Request, res: Response) => {
    const webhook = await webhookOf(webhooks, req);
    if (!SERVICES.has(String(req.params.service))) throw ApiError.of('UNKNOWN_WEBHOOK_SERVICE');
    res.json(await webhooks.getWithToken(webhook));
  });

  app.post('/webhooks/:webhookId/:token/slack', async (req: Request, res: Response) => {
    const webhook = await executingWebhookOf(webhooks, req);
    await bodies.read(req, res);
    const input = fromSlack(parse(slackSchema, payloadOf(req)));
    // The chat tool's senders read a 200 with `ok`, as the tool itself answers.
    await post(req, res, webhook, input, () => void res.status(200).type('text/plain').send('ok'));
  });

  app.post('/webhooks/:webhookId/:token/github', async (req: Request, res: Response) => {
    const webhook = await executingWebhookOf(webhooks, req);
    await bodies.read(req, res);
    const event = String(req.headers['x-github-event'] ?? '');
    const embed = renderGithub(event, payloadOf(req));
    // Events and actions the platform does not show are taken and dropped at once (a ping too).
    if (!embed) return void res.status(204).end();
    await post(req, res, webhook, { embeds: [embed] }, () => void res.status(204).end());
  });

  app.post('/webhooks/:webhookId/:token/:service', async (req: Request) => {
    await webhookOf(webhooks, req);
    throw ApiError.of('UNKNOWN_WEBHOOK_SERVICE');
  });
}
