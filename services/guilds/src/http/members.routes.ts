import type { Express } from 'express';
import { parse, userIdOf } from '@kith/platform';
import type { MembersService } from '../domain/members.service.js';
import {
  banBody,
  bansQuery,
  memberBody,
  memberRoleParams,
  membersQuery,
  myMemberBody,
  userParams,
  guildIdOf,
  present,
} from './guilds.schemas.js';

/** The `X-Audit-Log-Reason` header is URL-encoded; a malformed one is kept as sent. */
function auditReason(header: string): string {
  try {
    return decodeURIComponent(header).slice(0, 512);
  } catch {
    return header.slice(0, 512);
  }
}

/** Members, their roles, kicks and bans. */
export function memberRoutes(app: Express, members: MembersService): void {
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
