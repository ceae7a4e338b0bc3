import type { Express, Request } from 'express';
import { z } from 'zod';
import { parse, snowflakeField, userIdOf } from '@kith/platform';
import type { ContactSyncService } from '../domain/contact-sync.service.js';
import type { RelationshipListCache } from '../domain/relationship-list.js';
import type { RelationshipsService } from '../domain/relationships.service.js';
import { bulkAddBody, bulkRemoveBody, bulkRemoveQuery, createBody, modifyBody, sendRequestBody } from './schemas.js';

const targetParams = z.object({ user_id: snowflakeField });
const targetOf = (req: Request): string => parse(targetParams, req.params).user_id;

export function relationshipRoutes(
  app: Express,
  relationships: RelationshipsService,
  lists: RelationshipListCache,
  contactSync: ContactSyncService,
): void {
  const base = '/users/@me/relationships';

  // The rendered bytes as they were kept: no serialisation per request. The tag lets a client
  // that already has this exact list skip the body.
  app.get(base, async (req, res) => {
    const list = await lists.get(userIdOf(res));
    res.setHeader('ETag', list.etag);
    res.setHeader('Cache-Control', 'private, no-cache');
    if (etagMatches(req.headers['if-none-match'], list.etag)) return void res.status(304).end();
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('Content-Length', list.body.length);
    res.end(list.body);
  });

  app.post(base, async (req, res) => {
    const { username, discriminator } = parse(sendRequestBody, req.body);
    await relationships.sendByUsername(userIdOf(res), username, discriminator ?? null);
    res.status(204).end();
  });

  app.delete(base, async (req, res) => {
    const query = parse(bulkRemoveQuery, req.query);
    const body = parse(bulkRemoveBody, req.body);
    const filters = new Set(body?.filters ?? []);
    await relationships.removeIncoming(userIdOf(res), { spam: query.only_spam || filters.has(1), ignored: filters.has(2) });
    res.status(204).end();
  });

  app.post(`${base}/bulk`, async (req, res) => {
    const { user_ids, token } = parse(bulkAddBody, req.body);
    res.json(await contactSync.bulkAdd(userIdOf(res), user_ids, token));
  });

  app.put(`${base}/:user_id`, async (req, res) => {
    const userId = userIdOf(res);
    const target = targetOf(req);
    const body = parse(createBody, req.body);
    const options = { confirmStranger: body.confirm_stranger_request ?? false };
    if (body.type === 2) await relationships.block(userId, target);
    else if (body.type === 1) await relationships.acceptById(userId, target, options);
    else await relationships.requestOrAcceptById(userId, target, options);
    res.status(204).end();
  });

  app.patch(`${base}/:user_id`, async (req, res) => {
    const userId = userIdOf(res);
    const { nickname } = parse(modifyBody, req.body);
    await relationships.setNickname(userId, targetOf(req), nickname ?? null);
    res.status(204).end();
  });

  app.delete(`${base}/:user_id`, async (req, res) => {
    await relationships.remove(userIdOf(res), targetOf(req));
    res.status(204).end();
  });

  app.put(`${base}/:user_id/ignore`, async (req, res) => {
    await relationships.ignore(userIdOf(res), targetOf(req));
    res.status(204).end();
  });

  app.delete(`${base}/:user_id/ignore`, async (req, res) => {
    await relationships.unignore(userIdOf(res), targetOf(req));
    res.status(204).end();
  });
}

/** If-None-Match: `*` or a list of tags, weak ones compared by their opaque part (RFC 9110 §13.1.2). */
function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}
