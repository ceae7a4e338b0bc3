import type { Express } from 'express';
import { parse, userIdOf } from '@kith/platform';
import type { ConnectionsService } from '../domain/streaming/connections.service.js';
import type { StreamingService } from '../domain/streaming/streaming.service.js';
import {
  callbackBody,
  connectionParams,
  connectionTypeParams,
  createIntegrationBody,
  guildIntegrationParams,
  guildParams,
  integrationParams,
  modifyIntegrationBody,
} from './integrations.schemas.js';

/** Streaming integrations (create, modify, sync, join) and the connections they stand on. */
export function streamingRoutes(app: Express, streaming: StreamingService, connections: ConnectionsService): void {
  app.post('/guilds/:guild_id/integrations', async (req, res) => {
    const userId = userIdOf(res);
    const { guild_id } = parse(guildParams, req.params);
    const { type, id } = parse(createIntegrationBody, req.body);
    await streaming.create(userId, guild_id, type, id);
    res.status(204).end();
  });

  app.patch('/guilds/:guild_id/integrations/:integration_id', async (req, res) => {
    const userId = userIdOf(res);
    const { guild_id, integration_id } = parse(guildIntegrationParams, req.params);
    await streaming.modify(userId, guild_id, integration_id, parse(modifyIntegrationBody, req.body));
    res.status(204).end();
  });

  app.post('/guilds/:guild_id/integrations/:integration_id/sync', async (req, res) => {
    const userId = userIdOf(res);
    const { guild_id, integration_id } = parse(guildIntegrationParams, req.params);
    await streaming.sync(userId, guild_id, integration_id);
    res.status(204).end();
  });

  app.post('/integrations/:integration_id/join', async (req, res) => {
    const userId = userIdOf(res);
    await streaming.join(userId, parse(integrationParams, req.params).integration_id);
    res.status(204).end();
  });

  app.get('/connections/:type/authorize', async (req, res) => {
    const userId = userIdOf(res);
    res.json(await connections.authorizeUrl(userId, parse(connectionTypeParams, req.params).type));
  });

  app.post('/connections/:type/callback', async (req, res) => {
    const userId = userIdOf(res);
    const { type } = parse(connectionTypeParams, req.params);
    const { code, state } = parse(callbackBody, req.body);
    res.json(await connections.callback(userId, type, code, state));
  });

  app.get('/users/@me/connections', async (_req, res) => {
    res.json(await connections.list(userIdOf(res)));
  });

  app.delete('/users/@me/connections/:type/:account_id', async (req, res) => {
    const userId = userIdOf(res);
    const { type, account_id } = parse(connectionParams, req.params);
    await connections.remove(userId, type, account_id);
    res.status(204).end();
  });
}
