import { z } from 'zod';
import type { Logger } from '@kith/platform';
import { Op } from '../gateway/protocol.js';
import type { GatewayConnection } from './connection.js';
import type { FoundMembers, GuildsPort, PresenceReader, SessionReplies } from './ports.js';

const snowflake = z.string().regex(/^\d{1,20}$/);
const oneOrMany = (max: number) => z.union([snowflake.transform((id) => [id]), z.array(snowflake).max(max)]);

/** Op 8 as the platform documents it: one of `query` (with `limit`) or `user_ids`. */
export const requestGuildMembersData = z
  .looseObject({
    guild_id: oneOrMany(100).refine((ids) => ids.length > 0),
    query: z.string().max(100).optional(),
    limit: z.number().int().min(0).max(100).optional(),
    presences: z.boolean().optional(),
    user_ids: oneOrMany(100).optional(),
    nonce: z.unknown().optional(),
  })
  .refine((d) => d.user_ids !== undefined || (d.query !== undefined && d.limit !== undefined));
export type RequestGuildMembersData = z.output<typeof requestGuildMembersData>;

/** Identify intents that gate what op 8 gives a bot. */
const GUILD_MEMBERS_INTENT = 1 << 1;
const GUILD_PRESENCES_INTENT = 1 << 8;
const CHUNK_SIZE = 1000;
const NONCE_MAX_BYTES = 32;
/** The platform's sub-limit for op 8: one request per guild per session every 30 seconds. */
const PER_GUILD_WINDOW_MS = 30_000;

export interface MemberRequestsDeps {
  guilds?: GuildsPort;
  presences?: PresenceReader;
  replies?: SessionReplies;
  logger: Logger;
  now?: () => number;
}

/** What the connection is allowed to ask for: who it is and, for a bot, its Identify intents. */
export interface Requester {
  userId: string;
  sessionId: string;
  bot: boolean;
  intents: number;
}

/**
 * Request Guild Members (op 8): for each requested guild the requester is in, the members guilds
 * finds go back as GUILD_MEMBERS_CHUNK dispatches of up to 1000 members, through the event stream
 * to this session alone (so they are numbered and resumable like every dispatch). A guild the
 * requester is not in, or whose whole list they may not have, gets no chunk, as on the platform.
 * A connection asks for each guild once every 30 seconds (the platform's sub-limit for op 8, one
 * request per guild per session); asked again sooner, it gets RATE_LIMITED with `opcode`,
 * `retry_after` (seconds) and `meta` (the guild and the nonce) and stays open. The general limit
 * (120 frames a minute, then close 4008) is the connection's own.
 */
export class MemberRequests {
  /** When each connection last asked for each guild (gone with the connection). */
  private readonly asked = new WeakMap<GatewayConnection, Map<string, number>>();
  private readonly now: () => number;

  constructor(private readonly deps: MemberRequestsDeps) {
    this.now = deps.now ?? Date.now;
  }

  async handle(conn: GatewayConnection, requester: Requester, request: RequestGuildMembersData): Promise<void> {
    const { guilds, replies, logger } = this.deps;
    if (!guilds || !replies) return;
    // A bot asks for one guild at a time.
    const guildIds = (requester.bot ? request.guild_id.slice(0, 1) : request.guild_id).filter((id) => conn.guilds.has(id));
    const nonce = validNonce(request.nonce);
    const withPresences = request.presences === true && (!requester.bot || (requester.intents & GUILD_PRESENCES_INTENT) !== 0);
    const session = { id: requester.sessionId, userId: requester.userId };
    for (const guildId of guildIds) {
      const waitMs = this.waitFor(conn, guildId);
      if (waitMs > 0) {
        // Asked again too soon: the platform answers RATE_LIMITED, and the connection stays open.
        const meta = { guild_id: guildId, ...(nonce !== undefined ? { nonce } : {}) };
        await replies
          .send(session, 'RATE_LIMITED', { opcode: Op.RequestGuildMembers, retry_after: waitMs / 1000, meta })
          .catch((err: unknown) => logger.warn({ err }, 'RATE_LIMITED not sent'));
        continue;
      }
      try {
        const found = await this.find(guildId, requester, request);
        const chunks = chunked(found.members);
        for (const [index, members] of chunks.entries()) {
          const presences =
            withPresences && this.deps.presences ? await this.deps.presences.presences(members.map((m) => m.user.id)) : undefined;
          await replies.send(session, 'GUILD_MEMBERS_CHUNK', {
            guild_id: guildId,
            members,
            chunk_index: index,
            chunk_count: chunks.length,
            ...(request.user_ids ? { not_found: found.notFound } : {}),
            ...(presences ? { presences } : {}),
            ...(nonce !== undefined ? { nonce } : {}),
          });
        }
      } catch (err) {
        logger.info({ err, guild_id: guildId }, 'request guild members refused');
      }
    }
  }

  /** 0 when the connection may ask for the guild now (the request is then counted), else how long until it may. */
  private waitFor(conn: GatewayConnection, guildId: string): number {
    const now = this.now();
    let asked = this.asked.get(conn);
    if (!asked) this.asked.set(conn, (asked = new Map()));
    const last = asked.get(guildId);
    if (last !== undefined && now - last < PER_GUILD_WINDOW_MS) return PER_GUILD_WINDOW_MS - (now - last);
    for (const [id, at] of asked) if (now - at >= PER_GUILD_WINDOW_MS) asked.delete(id);
    asked.set(guildId, now);
    return 0;
  }

  /** By ids, by prefix, or the whole list a page at a time. */
  private async find(guildId: string, requester: Requester, request: RequestGuildMembersData): Promise<FoundMembers> {
    const guilds = this.deps.guilds!;
    const base = {
      guildId,
      requesterId: requester.userId,
      query: request.query ?? '',
      userIds: request.user_ids ?? [],
      limit: request.limit ?? 0,
      privileged: requester.bot && (requester.intents & GUILD_MEMBERS_INTENT) !== 0,
    };
    if (base.userIds.length > 0 || base.query !== '') return guilds.searchMembers({ ...base, after: '' });
    const all: FoundMembers = { members: [], notFound: [] };
    for (let after = ''; ;) {
      const page = await guilds.searchMembers({ ...base, after });
      all.members.push(...page.members);
      // A limit with an empty query (the platform wants 0) caps the list.
      if (base.limit > 0 && all.members.length >= base.limit) return { ...all, members: all.members.slice(0, base.limit) };
      if (page.members.length < CHUNK_SIZE) return all;
      after = page.members.at(-1)!.user.id;
    }
  }
}

/** At least one chunk, even an empty one, so the client hears its request was answered. */
function chunked<T>(items: T[]): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK_SIZE) chunks.push(items.slice(i, i + CHUNK_SIZE));
  return chunks.length > 0 ? chunks : [[]];
}

/** An invalid nonce is ignored: the chunks then carry none. */
function validNonce(nonce: unknown): string | undefined {
  return typeof nonce === 'string' && Buffer.byteLength(nonce) <= NONCE_MAX_BYTES ? nonce : undefined;
}
