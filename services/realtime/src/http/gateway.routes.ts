import type { Express } from 'express';

/** What a client is told about sessions it may start: one shard, no start limit worth counting yet. */
const SESSION_START_LIMIT = { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 };

/** `GET /gateway` (anyone) and `GET /gateway/bot` (with or without a token): where to connect. */
export function gatewayRoutes(app: Express, publicUrl: string): void {
  app.get('/gateway', (_req, res) => void res.json({ url: publicUrl }));
  app.get('/gateway/bot', (_req, res) => void res.json({ url: publicUrl, shards: 1, session_start_limit: SESSION_START_LIMIT }));
}
