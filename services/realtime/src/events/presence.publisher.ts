import type { DomainEvent, Logger, NatsConnection, Redis } from '@kith/platform';
import type { Presence, PresencePort, PresenceReader, PresenceView, SessionReplies } from '../domain/ports.js';
import { publishDirect } from './direct.publish.js';

/** Who a user's presence goes to beyond their guilds. */
export interface FriendsSource {
  friendIds(userId: string): Promise<string[]>;
}

const PRESENCE_UPDATE = 'PRESENCE_UPDATE';

/** A connected connection's score: it counts until it goes (the largest date there is). */
const CONNECTED = 8.64e15;

/**
 * A connection counts: the user's first one (once those whose window has passed are dropped)
 * answers 1 and what the user last was, any other 0.
 */
const CONNECT = `redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
local first = redis.call('ZCARD', KEYS[1]) == 0
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
if first then return {1, redis.call('GET', KEYS[2]) or ''} end
return {0, ''}`;

/**
 * A connection counts no more (ARGV[3] '1'), or no more if its window has passed ('0'). Answers
 * what the user was when this took away their last one (they are offline from now on), or false.
 */
const DISCONNECT = `local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score then return false end
if ARGV[3] == '0' and tonumber(score) > tonumber(ARGV[2]) then return false end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
if redis.call('ZCARD', KEYS[1]) > 0 then return false end
local was = redis.call('GET', KEYS[2]) or ''
redis.call('DEL', KEYS[1], KEYS[2])
return was`;

interface PresenceCommands {
  presenceConnect(connections: string, kept: string, connectionId: string, now: number, score: number): Promise<[number, string]>;
  presenceDisconnect(connections: string, kept: string, connectionId: string, now: number, force: '1' | '0'): Promise<string | null>;
}

/** A user's keys share a hash tag, so a Redis Cluster keeps them on one node for the scripts. */
const keys = (userId: string) => ({ kept: `presence:{${userId}}`, connections: `presence:{${userId}}:connections` });

const ONLINE: Presence = { status: 'online', activities: [] };

/**
 * A user's presence kept in Redis and published on the event stream as PRESENCE_UPDATE: once to
 * their friends, and once per guild to its members with the guild's id, as the platform sends
 * it. A presence is a moment's state, not a change of record: it goes straight to the stream,
 * without an outbox.
 *
 * Who is present: each of the user's connections, in a sorted set scored by until when it counts
 * (a live one for ever; a dropped one for the resume window, as the platform keeps a session that
 * was not closed with 1000 or 1001 "active" until it times out). Dropped connections are checked
 * again when their window ends, by a timer of the replica that saw them go; a replica stopped
 * before then leaves that check undone, so those users' friends are not told they went offline,
 * though everything read afterwards (READY, op 8) already shows them offline.
 */
export class PresencePublisher implements PresencePort, PresenceReader, SessionReplies {
  private readonly commands: PresenceCommands;
  private readonly checks = new Set<NodeJS.Timeout>();

  constructor(
    private readonly redis: Redis,
    private readonly nats: NatsConnection,
    private readonly friends: FriendsSource | undefined,
    /** The resume window: how long a dropped connection still counts. */
    private readonly resumeWindowMs: number,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {
    redis.defineCommand('presenceConnect', { numberOfKeys: 2, lua: CONNECT });
    redis.defineCommand('presenceDisconnect', { numberOfKeys: 2, lua: DISCONNECT });
    this.commands = redis as unknown as PresenceCommands;
  }

  async update(userId: string, presence: Presence, guildIds: readonly string[], friendIds?: readonly string[]): Promise<void> {
    const data = view(userId, presence);
    await this.redis.set(keys(userId).kept, JSON.stringify(data));
    await this.publish(userId, data, guildIds, friendIds);
  }

  async connected(
    userId: string,
    connectionId: string,
    requested: Presence | undefined,
    guildIds: readonly string[],
    friendIds?: readonly string[],
  ): Promise<void> {
    const { kept, connections } = keys(userId);
    const [first, was] = await this.commands.presenceConnect(connections, kept, connectionId, this.now(), CONNECTED);
    let presence = requested;
    if (!presence && first === 1) {
      const last = was ? (JSON.parse(was) as PresenceView) : undefined;
      presence = last ? { status: last.status as Presence['status'], activities: last.activities } : ONLINE;
    }
    if (!presence) return;
    // The first connection of an invisible user shows nothing new: they were offline and still appear so.
    if (first === 1 && presence.status === 'offline') await this.redis.set(kept, JSON.stringify(view(userId, presence)));
    else await this.update(userId, presence, guildIds, friendIds);
  }

  async disconnected(userId: string, connectionId: string, resumable: boolean, guildIds: readonly string[]): Promise<void> {
    if (!resumable) return this.goneIfLast(userId, connectionId, true, guildIds);
    const { connections } = keys(userId);
    await this.redis.zadd(connections, 'XX', this.now() + this.resumeWindowMs, connectionId);
    // A little after the window, so the session store has let the session go by then.
    const check = setTimeout(() => {
      this.checks.delete(check);
      this.goneIfLast(userId, connectionId, false, guildIds).catch((err: unknown) =>
        this.logger.warn({ err }, 'offline presence not announced'),
      );
    }, this.resumeWindowMs + 100);
    check.unref();
    this.checks.add(check);
  }

  /** Stops the checks of dropped connections (the replica is stopping). */
  close(): void {
    for (const check of this.checks) clearTimeout(check);
    this.checks.clear();
  }

  /** The connection no longer counts (`now`, or once its window has passed): when it was the user's last, they are offline. */
  private async goneIfLast(userId: string, connectionId: string, now: boolean, guildIds: readonly string[]): Promise<void> {
    const { kept, connections } = keys(userId);
    const was = await this.commands.presenceDisconnect(connections, kept, connectionId, this.now(), now ? '1' : '0');
    if (was === null) return;
    // Someone who appeared offline (invisible) already looks it.
    if (was && (JSON.parse(was) as PresenceView).status === 'offline') return;
    await this.publish(userId, view(userId, { status: 'offline', activities: [] }), guildIds);
  }

  /** To the user's friends (`known`, or as social has them now) and to each of their guilds. */
  private async publish(userId: string, data: PresenceView, guildIds: readonly string[], known?: readonly string[]): Promise<void> {
    const friendIds = known ?? (this.friends ? await this.friends.friendIds(userId) : []);
    const events: DomainEvent[] = [];
    if (friendIds.length > 0) events.push({ name: PRESENCE_UPDATE, audience: { users: [...friendIds] }, data });
    for (const guildId of guildIds)
      events.push({ name: PRESENCE_UPDATE, audience: { guilds: [guildId] }, data: { ...data, guild_id: guildId } });
    await publishDirect(this.nats, events);
  }

  /**
   * A user is present while one of their connections counts (any replica), as they last set it,
   * or plain online when they never did.
   */
  async presences(userIds: readonly string[]): Promise<PresenceView[]> {
    if (userIds.length === 0) return [];
    const now = this.now();
    const pipeline = this.redis.pipeline();
    for (const id of userIds) pipeline.zcount(keys(id).connections, `(${now}`, '+inf');
    const [counts, kept] = await Promise.all([pipeline.exec(), this.redis.mget(userIds.map((id) => keys(id).kept))]);
    return userIds.flatMap((id, i) => {
      const [err, count] = counts?.[i] ?? [null, 0];
      if (err) throw err;
      if (Number(count) <= 0) return [];
      const stored = kept[i];
      const presence = stored ? (JSON.parse(stored) as PresenceView) : view(id, ONLINE);
      return presence.status === 'offline' ? [] : [presence];
    });
  }

  /** Only the named gateway session gets it: the user's other sessions skip it (delivery's rule). */
  async send(session: { id: string; userId: string }, name: string, data: unknown): Promise<void> {
    await publishDirect(this.nats, [{ name, audience: { users: [session.userId] }, data, internal: { gateway_session_id: session.id } }]);
  }
}

/** The platform names the platforms a user is on with the status there; Kith's gateway serves web-like clients. */
const clientStatus = (presence: Presence): Record<string, string> => (presence.status === 'offline' ? {} : { web: presence.status });

const view = (userId: string, presence: Presence): PresenceView => ({
  user: { id: userId },
  status: presence.status,
  activities: presence.activities,
  client_status: clientStatus(presence),
});
