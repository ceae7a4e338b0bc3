import type { Express, Request } from 'express';
import { z } from 'zod';
import { parse, userIdOf } from '@kith/platform';
import {
  archivedQuery,
  createChannelBody,
  createThreadBody,
  modifyChannelBody,
  openPrivateBody,
  positionsBody,
  putOverwriteBody,
} from './channels.schemas.js';
import type { ChannelApi } from '../domain/channel.api.js';
import { idField } from './fields.js';
import { guildIdOf } from './guilds.schemas.js';

const channelParams = z.object({ channel_id: idField });
const overwriteParams = channelParams.extend({ overwrite_id: idField });
const recipientParams = channelParams.extend({ user_id: idField });

const channelOf = (req: Request): string => parse(channelParams, req.params).channel_id;

/** Guild channels, threads, permission overwrites, DMs and group DMs. */
export function channelRoutes(app: Express, api: ChannelApi): void {
  const { channels, threads, dms } = api;

  app.get('/guilds/:guild_id/channels', async (req, res) => {
    res.json(await channels.list(userIdOf(res), guildIdOf(req)));
  });

  app.post('/guilds/:guild_id/channels', async (req, res) => {
    const guildId = guildIdOf(req);
    res.status(201).json(await channels.create(userIdOf(res), guildId, parse(createChannelBody, req.body)));
  });

  app.patch('/guilds/:guild_id/channels', async (req, res) => {
    const guildId = guildIdOf(req);
    await channels.reorder(userIdOf(res), guildId, parse(positionsBody, req.body));
    res.status(204).end();
  });

  app.get('/guilds/:guild_id/threads/active', async (req, res) => {
    res.json(await threads.active(userIdOf(res), guildIdOf(req)));
  });

  app.get('/channels/:channel_id', async (req, res) => {
    res.json(await api.get(userIdOf(res), channelOf(req)));
  });

  app.patch('/channels/:channel_id', async (req, res) => {
    const channelId = channelOf(req);
    res.json(await api.modify(userIdOf(res), channelId, parse(modifyChannelBody, req.body)));
  });

  app.delete('/channels/:channel_id', async (req, res) => {
    res.json(await api.delete(userIdOf(res), channelOf(req)));
  });

  app.put('/channels/:channel_id/permissions/:overwrite_id', async (req, res) => {
    const { channel_id, overwrite_id } = parse(overwriteParams, req.params);
    const body = parse(putOverwriteBody, req.body);
    const overwrite = { id: overwrite_id, type: body.type, allow: body.allow ?? 0n, deny: body.deny ?? 0n };
    await channels.putOverwrite(userIdOf(res), channel_id, overwrite);
    res.status(204).end();
  });

  app.delete('/channels/:channel_id/permissions/:overwrite_id', async (req, res) => {
    const { channel_id, overwrite_id } = parse(overwriteParams, req.params);
    await channels.deleteOverwrite(userIdOf(res), channel_id, overwrite_id);
    res.status(204).end();
  });

  app.post('/channels/:channel_id/threads', async (req, res) => {
    const channelId = channelOf(req);
    res.status(201).json(await threads.create(userIdOf(res), channelId, parse(createThreadBody, req.body)));
  });

  app.get('/channels/:channel_id/threads/archived/public', async (req, res) => {
    const channelId = channelOf(req);
    const query = parse(archivedQuery, req.query);
    res.json(await threads.archivedPublic(userIdOf(res), channelId, query.before, query.limit));
  });

  app.get('/users/@me/channels', async (_req, res) => {
    res.json(await dms.list(userIdOf(res)));
  });

  app.post('/users/@me/channels', async (req, res) => {
    res.json(await dms.open(userIdOf(res), parse(openPrivateBody, req.body)));
  });

  app.put('/channels/:channel_id/recipients/:user_id', async (req, res) => {
    const { channel_id, user_id } = parse(recipientParams, req.params);
    await dms.addRecipient(userIdOf(res), channel_id, user_id);
    res.status(204).end();
  });

  app.delete('/channels/:channel_id/recipients/:user_id', async (req, res) => {
    const { channel_id, user_id } = parse(recipientParams, req.params);
    await dms.removeRecipient(userIdOf(res), channel_id, user_id);
    res.status(204).end();
  });
}
