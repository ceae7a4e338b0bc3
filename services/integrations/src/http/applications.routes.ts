import type { Express } from 'express';
import { ApiError, identityOf, parse, userIdOf } from '@kith/platform';
import { ICON_FILE } from '../domain/applications/app-icon.js';
import type { ApplicationsService } from '../domain/applications/applications.service.js';
import type { AuthorizePreview } from '../domain/applications/authorize-preview.service.js';
import type { AuthorizeService } from '../domain/applications/authorize.service.js';
import {
  applicationGuildParams,
  appIconParams,
  applicationParams,
  authorizeBody,
  authorizeQuery,
  commandBody,
  commandParams,
  createApplicationBody,
  roleConnectionRecords,
  updateApplicationBody,
} from './integrations.schemas.js';

/** Developers' applications and their commands, and the OAuth2 authorization that installs them. */
export function applicationRoutes(
  app: Express,
  applications: ApplicationsService,
  authorize: AuthorizeService,
  preview: AuthorizePreview,
): void {
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

  app.get('/applications/:application_id/role-connections/metadata', async (req, res) => {
    const userId = userIdOf(res);
    res.json(await applications.roleConnectionMetadata(userId, parse(applicationParams, req.params).application_id));
  });

  app.put('/applications/:application_id/role-connections/metadata', async (req, res) => {
    const userId = userIdOf(res);
    const { application_id } = parse(applicationParams, req.params);
    res.json(await applications.setRoleConnectionMetadata(userId, application_id, parse(roleConnectionRecords, req.body)));
  });

  // The platform's CDN path for application icons; anyone may fetch one.
  app.get('/app-icons/:application_id/:file', async (req, res) => {
    const { application_id, file } = parse(appIconParams, req.params);
    const match = ICON_FILE.exec(file);
    if (!match) throw ApiError.of('UNKNOWN_APPLICATION');
    const icon = await applications.icon(application_id, file.slice(0, file.lastIndexOf('.')));
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.type(icon.contentType).send(icon.data);
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

  app.get('/oauth2/authorize', async (req, res) => {
    const userId = userIdOf(res);
    const query = parse(authorizeQuery, req.query);
    res.json(
      await preview.preview(userId, {
        clientId: query.client_id,
        scopes: query.scope,
        integrationType: query.integration_type,
        responseType: query.response_type,
        redirectUri: query.redirect_uri,
      }),
    );
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
        permissions: body.permissions === undefined ? undefined : BigInt(body.permissions),
        webhookChannelId: body.webhook_channel_id,
        responseType: query.response_type,
        redirectUri: query.redirect_uri,
        state: query.state,
      }),
    );
  });
}
