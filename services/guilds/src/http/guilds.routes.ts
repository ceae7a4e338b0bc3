import type { Express, Request, RequestHandler } from 'express';
import { parse, userIdOf } from '@kith/platform';
import type { GuildsDeps } from '../domain/deps.js';
import { GuildsService, type GuildSettings } from '../domain/guilds.service.js';
import { MembersService } from '../domain/members.service.js';
import { RolesService, type RoleSettings } from '../domain/roles.service.js';
import {
  banBody,
  bansQuery,
  createGuildBody,
  guildParams,
  memberBody,
  memberRoleParams,
  membersQuery,
  myMemberBody,
  roleBody,
  roleParams,
  rolePositionsBody,
  updateGuildBody,
  userGuildsQuery,
  userParams,
  withCountsQuery,
} from './guilds.schemas.js';

const guildIdOf = (req: Request): string => parse(guildParams, req.params).guild_id;

/** Drops the keys a body left out or set to null where null means "leave as is". */
function present<T extends object>(body: T, nullable: readonly string[] = []): Partial<{ [K in keyof T]: NonNullable<T[K]> | null }> {
  return Object.fromEntries(
    Object.entries(body).filter(([key, value]) => value !== undefined && (value !== null || nullable.includes(key))),
  ) as Partial<{ [K in keyof T]: NonNullable<T[K]> | null }>;
}

/** The `X-Audit-Log-Reason` header is URL-encoded; a malformed one is kept as sent. */
function auditReason(header: string): string {
  try {
    return decodeURIComponent(header).slice(0, 512);
  } catch {
    return header.slice(0, 512);
  }
}

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

/** Guilds, roles, members and bans. */
export function guildRoutes(app: Express, deps: GuildsDeps): void {
  const guilds = new GuildsService(deps);
  const roles = new RolesService(deps);
  const members = new MembersService(deps);

  // Guilds

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

  // Roles

  app.get('/guilds/:guild_id/roles', async (req, res) => {
    res.json(await roles.list(userIdOf(res), guildIdOf(req)));
  });

  app.post('/guilds/:guild_id/roles', async (req, res) => {
    const settings = present(parse(roleBody, req.body), ['icon', 'unicode_emoji']) as RoleSettings;
    res.json(await roles.create(userIdOf(res), guildIdOf(req), settings));
  });

  app.patch('/guilds/:guild_id/roles', async (req, res) => {
    const moves = parse(rolePositionsBody, req.body);
    res.json(await roles.reorder(userIdOf(res), guildIdOf(req), moves));
  });

  app.get('/guilds/:guild_id/roles/:role_id', async (req, res) => {
    const { guild_id, role_id } = parse(roleParams, req.params);
    res.json(await roles.get(userIdOf(res), guild_id, role_id));
  });

  app.patch('/guilds/:guild_id/roles/:role_id', async (req, res) => {
    const { guild_id, role_id } = parse(roleParams, req.params);
    const settings = present(parse(roleBody, req.body), ['icon', 'unicode_emoji']) as RoleSettings;
    res.json(await roles.update(userIdOf(res), guild_id, role_id, settings));
  });

  app.delete('/guilds/:guild_id/roles/:role_id', async (req, res) => {
    const { guild_id, role_id } = parse(roleParams, req.params);
    await roles.delete(userIdOf(res), guild_id, role_id);
    res.status(204).end();
  });

  // Members

  app.get('/guilds/:guild_id/members', async (req, res) => {
    const { after, limit } = parse(membersQuery, req.query);
    res.json(await members.list(userIdOf(res), guildIdOf(req), after ?? null, limit));
  });

  // Before `/members/:user_id`: `@me` is not a snowflake.
  app.patch('/guilds/:guild_id/members/@me', async (req, res) => {
    const userId = userIdOf(res);
    const body = present(parse(myMemberBody, req.body), ['nick']);
    res.json(await members.update(userId, guildIdOf(req), userId, body));
  });

  app.get('/guilds/:guild_id/members/:user_id', async (req, res) => {
    const { guild_id, user_id } = parse(userParams, req.params);
    res.json(await members.get(userIdOf(res), guild_id, user_id));
  });

  app.patch('/guilds/:guild_id/members/:user_id', async (req, res) => {
    const { guild_id, user_id } = parse(userParams, req.params);
    const body = present(parse(memberBody, req.body), ['nick', 'communication_disabled_until']);
    const changes = { ...body, ...(body.roles === null ? { roles: [] } : {}) } as Parameters<MembersService['update']>[3];
    res.json(await members.update(userIdOf(res), guild_id, user_id, changes));
  });

  app.delete('/guilds/:guild_id/members/:user_id', async (req, res) => {
    const { guild_id, user_id } = parse(userParams, req.params);
    await members.kick(userIdOf(res), guild_id, user_id);
    res.status(204).end();
  });

  app.put('/guilds/:guild_id/members/:user_id/roles/:role_id', async (req, res) => {
    const { guild_id, user_id, role_id } = parse(memberRoleParams, req.params);
    await members.addRole(userIdOf(res), guild_id, user_id, role_id);
    res.status(204).end();
  });

  app.delete('/guilds/:guild_id/members/:user_id/roles/:role_id', async (req, res) => {
    const { guild_id, user_id, role_id } = parse(memberRoleParams, req.params);
    await members.removeRole(userIdOf(res), guild_id, user_id, role_id);
    res.status(204).end();
  });

  // Bans

  app.get('/guilds/:guild_id/bans', async (req, res) => {
    const { limit, before, after } = parse(bansQuery, req.query);
    res.json(await members.bans(userIdOf(res), guildIdOf(req), { limit, ...(before ? { before } : {}), ...(after ? { after } : {}) }));
  });

  app.get('/guilds/:guild_id/bans/:user_id', async (req, res) => {
    const { guild_id, user_id } = parse(userParams, req.params);
    res.json(await members.ban(userIdOf(res), guild_id, user_id));
  });

  app.put('/guilds/:guild_id/bans/:user_id', async (req, res) => {
    const { guild_id, user_id } = parse(userParams, req.params);
    const body = parse(banBody, req.body);
    // The reason travels in the audit log header; the old body field still works.
    const header = req.get('x-audit-log-reason');
    const reason = header ? auditReason(header) : (body?.reason ?? null);
    await members.putBan(userIdOf(res), guild_id, user_id, reason);
    res.status(204).end();
  });

  app.delete('/guilds/:guild_id/bans/:user_id', async (req, res) => {
    const { guild_id, user_id } = parse(userParams, req.params);
    await members.deleteBan(userIdOf(res), guild_id, user_id);
    res.status(204).end();
  });
}
