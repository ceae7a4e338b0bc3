import type { Express } from 'express';
import { parse, userIdOf } from '@kith/platform';
import type { ChannelIntegrationsService } from '../domain/integrations/channel-integrations.service.js';
import type { IntegrationsService } from '../domain/integrations/integrations.service.js';
import { channelIntegrationParams, channelParams, guildIntegrationParams, guildParams, listQuery } from './integrations.schemas.js';

/** Guild and channel integrations, and the application ids over the user's guilds. */
export function integrationRoutes(app: Express, integrations: IntegrationsService, channels: ChannelIntegrationsService): void {
  app.get('/guilds/:guild_id/integrations', async (req, res) => {
    const userId = userIdOf(res);
    const { guild_id } = parse(guildParams, req.params);
    const query = parse(listQuery, req.query);
    res.json(
      await integrations.list(userId, guild_id, {
        hasCommands: query.has_commands,
        includeRoleConnectionsMetadata: query.include_role_connections_metadata,
      }),
    );
  });

  app.delete('/guilds/:guild_id/integrations/:integration_id', async (req, res) => {
    const userId = userIdOf(res);
    const { guild_id, integration_id } = parse(guildIntegrationParams, req.params);
    await integrations.delete(userId, guild_id, integration_id);
    res.status(204).end();
  });

  app.post('/guilds/:guild_id/migrate-command-scope', async (req, res) => {
    const userId = userIdOf(res);
    const { guild_id } = parse(guildParams, req.params);
    res.json(await integrations.migrateCommandScope(userId, guild_id));
  });

  app.get('/users/@me/guilds/integration-application-ids', async (_req, res) => {
    res.json(await integrations.applicationIds(userIdOf(res)));
  });

  app.get('/channels/:channel_id/integrations', async (req, res) => {
    const userId = userIdOf(res);
    const { channel_id } = parse(channelParams, req.params);
    res.json(await channels.list(userId, channel_id));
  });

  app.delete('/channels/:channel_id/integrations/:integration_id', async (req, res) => {
    const userId = userIdOf(res);
    const { channel_id, integration_id } = parse(channelIntegrationParams, req.params);
    await channels.delete(userId, channel_id, integration_id);
    res.status(204).end();
  });
}
