import express, { type Express, type Request } from 'express';
import { ApiError, identityOf, parse, userIdOf } from '@kith/platform';
import type { FriendInvitesService } from '../domain/friend-invites.service.js';
import type { InviteAcceptor } from '../domain/invite.accept.js';
import { isInviteCode } from '../domain/invite.codes.js';
import type { InviteCreator } from '../domain/invite.create.js';
import { inviteErrors } from '../domain/invite.errors.js';
import type { InviteRenderer } from '../domain/invite.renderer.js';
import type { InvitesService } from '../domain/invites.service.js';
import { parseTargetFile } from '../domain/target-users.file.js';
import type { TargetUsersService } from '../domain/target-users.service.js';
import {
  acceptInviteBody,
  channelParams,
  createInviteBody,
  createUserInviteBody,
  fromForm,
  getInviteQuery,
  guildParams,
} from './invites.schemas.js';
import { readMultipart } from './multipart.js';

export interface InviteRoutesDeps {
  invites: InvitesService;
  targets: TargetUsersService;
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

/** A target users file of 200,000 ids with CRLFs is under 5 MiB. */
const MAX_TARGET_FILE_BYTES = 8 * 1024 * 1024;
const TARGET_FILE_FIELD = 'target_users_file';

/**
 * Create Channel Invite's body: JSON, a form, or multipart (fields, or `payload_json`, beside the
 * target users file). Form and multipart values are read as JSON would carry them.
 */
async function createBodyOf(req: Request): Promise<{ body: unknown; file: string[] | undefined }> {
  if (req.is('application/x-www-form-urlencoded')) return { body: fromForm(req.body as Record<string, unknown>), file: undefined };
  if (!req.is('multipart/form-data')) return { body: req.body, file: undefined };
  const form = await readMultipart(req, MAX_TARGET_FILE_BYTES);
  const { payload_json: payload, ...fields } = form.fields;
  let body: Record<string, unknown> = fromForm(fields);
  if (payload !== undefined) {
    try {
      body = { ...body, ...(JSON.parse(payload) as Record<string, unknown>) };
    } catch {
      throw ApiError.of('INVALID_JSON');
    }
  }
  const file = form.files.get(TARGET_FILE_FIELD);
  return { body, file: file ? parseTargetFile(file.toString('utf8')) : undefined };
}

const formBody = express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 50 });

export function inviteRoutes(app: Express, { invites, targets, friends, creator, acceptor, render }: InviteRoutesDeps): void {
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
    const { body, file } = await createBodyOf(req);
    const input = { ...defined(parse(createInviteBody, body ?? {})), ...(file !== undefined ? { target_users_file: file } : {}) };
    const { invite, channel } = await creator.create(userId, channel_id, input);
    res.json(await render.one(invite, { metadata: true }, { channel }));
  });

  app.get('/invites/:code/target-users', async (req, res) => {
    const userId = userIdOf(res);
    const csv = await targets.csv(userId, codeOf(req));
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.send(csv);
  });

  app.put('/invites/:code/target-users', async (req, res) => {
    const userId = userIdOf(res);
    const code = codeOf(req);
    const file = req.is('multipart/form-data') ? (await readMultipart(req, MAX_TARGET_FILE_BYTES)).files.get(TARGET_FILE_FIELD) : undefined;
    if (!file) throw ApiError.form({ [TARGET_FILE_FIELD]: { code: 'BASE_TYPE_REQUIRED', message: 'This field is required' } });
    await targets.replace(userId, code, parseTargetFile(file.toString('utf8')));
    res.status(204).end();
  });

  app.get('/invites/:code/target-users/job-status', async (req, res) => {
    const userId = userIdOf(res);
    res.json(await targets.jobStatus(userId, codeOf(req)));
  });
}
