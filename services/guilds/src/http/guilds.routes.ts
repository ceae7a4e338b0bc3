import type { Express, RequestHandler } from 'express';
import { parse, userIdOf } from '@kith/platform';
import type { GuildSettings, GuildsService } from '../domain/guilds.service.js';
import type { MembersService } from '../domain/members.service.js';
import type { MemberVerificationService, VerificationChanges } from '../domain/member-verification.service.js';
import type { RolesService } from '../domain/roles.service.js';
import {
  createGuildBody,
  guildIdOf,
  joinRequestBody,
  memberVerificationBody,
  present,
  updateGuildBody,
  userGuildsQuery,
  withCountsQuery,
} from './guilds.schemas.js';
import { memberRoutes } from './members.routes.js';
import { roleRoutes } from './roles.routes.js';

/** Nullable guild settings: null clears them. */
const NULLABLE_GUILD_FIELDS = [
  'icon',
  'banner',
  'splash',
  'description',
  'afk_channel_id',
  'system_channel_id',
  'rules_channel_id',
  'public_updates_channel_id',
];

/** Guilds and the caller's guild list; roles, members and bans in their own files. */
export function guildRoutes(
  app: Express,
  {
    guilds,
    roles,
    members,
    verification,
  }: { guilds: GuildsService; roles: RolesService; members: MembersService; verification: MemberVerificationService },
): void {
  app.post('/guilds', async (req, res) => {
    const { region: _region, ...body } = parse(createGuildBody, req.body);
    const settings = present(body, NULLABLE_GUILD_FIELDS) as GuildSettings & { name: string };
    res.status(201).json(await guilds.create(userIdOf(res), settings));
  });

  app.get('/guilds/:guild_id', async (req, res) => {
    const { with_counts } = parse(withCountsQuery, req.query);
    res.json(await guilds.get(userIdOf(res), guildIdOf(req), with_counts));
  });

  app.patch('/guilds/:guild_id', async (req, res) => {
    const body = parse(updateGuildBody, req.body);
    res.json(
      await guilds.update(userIdOf(res), guildIdOf(req), present(body, NULLABLE_GUILD_FIELDS) as GuildSettings & { owner_id?: string }),
    );
  });

  const deleteGuild: RequestHandler = async (req, res) => {
    await guilds.delete(userIdOf(res), guildIdOf(req));
    res.status(204).end();
  };
  app.delete('/guilds/:guild_id', deleteGuild);
  app.post('/guilds/:guild_id/delete', deleteGuild);

  app.get('/users/@me/guilds', async (req, res) => {
    const query = parse(userGuildsQuery, req.query);
    res.json(
      await guilds.listMine(userIdOf(res), {
        limit: query.limit,
        withCounts: query.with_counts,
        ...(query.before ? { before: query.before } : {}),
        ...(query.after ? { after: query.after } : {}),
      }),
    );
  });

  app.delete('/users/@me/guilds/:guild_id', async (req, res) => {
    await guilds.leave(userIdOf(res), guildIdOf(req));
    res.status(204).end();
  });

  app.get('/guilds/:guild_id/member-verification', async (req, res) => {
    res.json(await verification.get(userIdOf(res), guildIdOf(req)));
  });

  app.patch('/guilds/:guild_id/member-verification', async (req, res) => {
    const guildId = guildIdOf(req);
    res.json(
      await verification.update(
        userIdOf(res),
        guildId,
        present(parse(memberVerificationBody, req.body), ['description']) as VerificationChanges,
      ),
    );
  });

  app.put('/guilds/:guild_id/requests/@me', async (req, res) => {
    const guildId = guildIdOf(req);
    res.json(await verification.submit(userIdOf(res), guildId, parse(joinRequestBody, req.body).form_fields));
  });

  roleRoutes(app, roles);
  memberRoutes(app, members);
}
