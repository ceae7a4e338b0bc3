import type { Express } from 'express';
import { z } from 'zod';
import { parse, snowflakeField, userIdOf } from '@kith/platform';
import type { GameRelationshipsService } from '../domain/game-relationships.service.js';
import type { SuggestionsService } from '../domain/suggestions.service.js';
import { gameCreateBody, gameCreateByApplicationBody, gameSendBody } from './schemas.js';

const userParams = z.object({ user_id: snowflakeField });
const userAppParams = z.object({ user_id: snowflakeField, application_id: snowflakeField });

export function gameRoutes(app: Express, games: GameRelationshipsService): void {
  const base = '/users/@me/game-relationships';

  app.get(base, async (_req, res) => {
    res.json(await games.list(userIdOf(res)));
  });

  app.post(base, async (req, res) => {
    const { username, application_id } = parse(gameSendBody, req.body);
    await games.sendByUsername(userIdOf(res), username, application_id);
    res.status(204).end();
  });

  app.put(`${base}/:user_id`, async (req, res) => {
    const userId = userIdOf(res);
    const { user_id } = parse(userParams, req.params);
    const body = parse(gameCreateBody, req.body);
    await games.requestOrAccept(userId, user_id, body?.application_id, body?.type === 1);
    res.status(204).end();
  });

  app.put(`${base}/:user_id/:application_id`, async (req, res) => {
    const userId = userIdOf(res);
    const { user_id, application_id } = parse(userAppParams, req.params);
    parse(gameCreateByApplicationBody, req.body);
    // By application only accepts their request (FRIEND is the only type it takes).
    await games.requestOrAccept(userId, user_id, application_id, true);
    res.status(204).end();
  });

  app.delete(`${base}/:user_id`, async (req, res) => {
    const userId = userIdOf(res);
    await games.remove(userId, parse(userParams, req.params).user_id);
    res.status(204).end();
  });

  app.delete(`${base}/:user_id/:application_id`, async (req, res) => {
    const userId = userIdOf(res);
    const { user_id, application_id } = parse(userAppParams, req.params);
    await games.remove(userId, user_id, application_id);
    res.status(204).end();
  });
}

export function suggestionRoutes(app: Express, suggestions: SuggestionsService): void {
  app.get('/friend-suggestions', async (_req, res) => {
    res.json(await suggestions.list(userIdOf(res)));
  });

  app.delete('/friend-suggestions/:user_id', async (req, res) => {
    const userId = userIdOf(res);
    await suggestions.remove(userId, parse(userParams, req.params).user_id);
    res.status(204).end();
  });
}
