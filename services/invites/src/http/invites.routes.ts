import express, { type Express, type Request } from 'express';
import { identityOf, parse, userIdOf } from '@kith/platform';
import type { FriendInvitesService } from '../domain/friend-invites.service.js';
import type { InviteAcceptor } from '../domain/invite.accept.js';
import { isInviteCode } from '../domain/invite.codes.js';
import type { InviteCreator } from '../domain/invite.create.js';
import { inviteErrors } from '../domain/invite.errors.js';
import type { InviteRenderer } from '../domain/invite.renderer.js';
import type { InvitesService } from '../domain/invites.service.js';
import {
  acceptInviteBody,
  channelParams,
  createInviteBody,
  createUserInviteBody,
  fromForm,
  getInviteQuery,
  guildParams,
} from './invites.schemas.js';

export interface InviteRoutesDeps {
  invites: InvitesService;
  friends: FriendInvitesService;
  creator: InviteCreator;
  acceptor: InviteAcceptor;
  render: InviteRenderer;
}

/** The code in the path: anything not shaped like a code is an unknown invite, without a lookup. */
function codeOf(req: Request): string {
  const code = String(req.params.code ?? '');
  if (!isInviteCode(code)) throw inviteErrors.unknownInvite();
  return code;
}

/** Drops undefined and null values: the domain reads absent and null alike. */
function defined<T extends Record<string, unknown>>(value: T): { [K in keyof T]?: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null)) as never;
}

const formBody = express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 50 });

export function inviteRoutes(app: Express, { invites, friends, creator, acceptor, render }: InviteRoutesDeps): void {
  // Anonymous callers may read an invite, as on the platform.
  app.get('/invites/:code', async (req, res) => {
    const code = codeOf(req);
    const query = parse(getInviteQuery, req.query);
    const options = { withCounts: query.with_counts, withPermissions: query.with_permissions };
    res.json(await invites.get(code, options, identityOf(res).userId ?? null));
  });

  app.get('/invites/:code/friend-members', async (req, res) => {
    const userId = userIdOf(res);
    const invite = await invites.live(codeOf(req));
    res.json({ friend_member_ids: await friends.friendMembers(userId, invite) });
  });

  app.get('/users/@me/invites', async (_req, res) => {
    res.json(await friends.list(userIdOf(res)));
  });

  app.post('/users/@me/invites', async (req, res) => {
    const userId = userIdOf(res);
    const body = parse(createUserInviteBody, req.body);
    res.json(await friends.create(userId, body?.code ?? undefined));
  });

  app.delete('/users/@me/invites', async (_req, res) => {
    res.json(await friends.revokeAll(userIdOf(res)));
  });

  app.post('/invites/:code', async (req, res) => {
    const userId = userIdOf(res);
    const code = codeOf(req);
    const body = parse(acceptInviteBody, req.body);
    res.json(await acceptor.accept(userId, code, { sessionId: body?.session_id ?? undefined }));
  });

  app.delete('/invites/:code', async (req, res) => {
    const userId = userIdOf(res);
    res.json(await invites.delete(userId, codeOf(req)));
  });

  app.get('/guilds/:guild_id/invites', async (req, res) => {
    const userId = userIdOf(res);
    const { guild_id } = parse(guildParams, req.params);
    res.json(await invites.listGuild(userId, guild_id));
  });

  app.get('/channels/:channel_id/invites', async (req, res) => {
    const userId = userIdOf(res);
    const { channel_id } = parse(channelParams, req.params);
    res.json(await invites.listChannel(userId, channel_id));
  });

  app.post('/channels/:channel_id/invites', formBody, async (req, res) => {
    const userId = userIdOf(res);
    const { channel_id } = parse(channelParams, req.params);
    const raw: unknown = req.is('application/x-www-form-urlencoded') ? fromForm(req.body as Record<string, unknown>) : req.body;
    const input = defined(parse(createInviteBody, raw ?? {}));
    const { invite, channel } = await creator.create(userId, channel_id, input);
    res.json(await render.one(invite, { metadata: true }, { channel }));
  });
}
