import type { Express } from 'express';
import { identityOf, parse, userIdOf } from '@kith/platform';
import type { ApplicationsService } from '../domain/applications/applications.service.js';
import type { AuthorizeService } from '../domain/applications/authorize.service.js';
import {
  applicationGuildParams,
  applicationParams,
  authorizeBody,
  authorizeQuery,
  commandBody,
  commandParams,
  createApplicationBody,
  updateApplicationBody,
} from './integrations.schemas.js';

/** Developers' applications and their commands, and the OAuth2 authorization that installs them. */
export function applicationRoutes(app: Express, applications: ApplicationsService, authorize: AuthorizeService): void {
  app.post('/applications', async (req, res) => {
    const userId = userIdOf(res);
    res.status(201).json(await applications.create(userId, parse(createApplicationBody, req.body)));
  });

  app.get('/applications', async (_req, res) => {
    res.json(await applications.list(userIdOf(res)));
  });

  app.get('/applications/:application_id', async (req, res) => {
    const userId = userIdOf(res);
    res.json(await applications.get(userId, parse(applicationParams, req.params).application_id));
  });

  app.patch('/applications/:application_id', async (req, res) => {
    const userId = userIdOf(res);
    const { application_id } = parse(applicationParams, req.params);
    res.json(await applications.update(userId, application_id, parse(updateApplicationBody, req.body)));
  });

  app.post('/applications/:application_id/bot/reset', async (req, res) => {
    const userId = userIdOf(res);
    const { application_id } = parse(applicationParams, req.params);
    // Wherever the platform's clients carry the elevation JWT: either header, or the cookie `/mfa/finish` set.
    const elevationToken =
      req.get('x-discord-mfa-authorization') ??
      req.get('x-service-mfa-authorization') ??
      /(?:^|;\s*)__Secure-recent_mfa=([^;]*)/.exec(req.get('cookie') ?? '')?.[1] ??
      '';
    const caller = { userId, sessionId: identityOf(res).sessionId, elevationToken };
    res.json(await applications.resetBotToken(caller, application_id));
  });

  app.get('/applications/:application_id/commands', async (req, res) => {
    const userId = userIdOf(res);
    res.json(await applications.commands(userId, parse(applicationParams, req.params).application_id, null));
  });

  app.post('/applications/:application_id/commands', async (req, res) => {
    const userId = userIdOf(res);
    const { application_id } = parse(applicationParams, req.params);
    const { created, command } = await applications.registerCommand(userId, application_id, null, parse(commandBody, req.body));
    res.status(created ? 201 : 200).json(command);
  });

  app.get('/applications/:application_id/guilds/:guild_id/commands', async (req, res) => {
    const userId = userIdOf(res);
    const { application_id, guild_id } = parse(applicationGuildParams, req.params);
    res.json(await applications.commands(userId, application_id, guild_id));
  });

  app.post('/applications/:application_id/guilds/:guild_id/commands', async (req, res) => {
    const userId = userIdOf(res);
    const { application_id, guild_id } = parse(applicationGuildParams, req.params);
    const { created, command } = await applications.registerCommand(userId, application_id, guild_id, parse(commandBody, req.body));
    res.status(created ? 201 : 200).json(command);
  });

  app.delete('/applications/:application_id/commands/:command_id', async (req, res) => {
    const userId = userIdOf(res);
    const { application_id, command_id } = parse(commandParams, req.params);
    await applications.deleteCommand(userId, application_id, command_id);
    res.status(204).end();
  });

  app.post('/oauth2/authorize', async (req, res) => {
    const userId = userIdOf(res);
    const query = parse(authorizeQuery, req.query);
    const body = parse(authorizeBody, req.body);
    res.json(
      await authorize.authorize(userId, {
        clientId: query.client_id,
        scopes: query.scope,
        integrationType: body.integration_type ?? query.integration_type,
        authorize: body.authorize,
        guildId: body.guild_id,
        channelId: body.channel_id,
        webhookChannelId: body.webhook_channel_id,
      }),
    );
  });
}
