import { randomUUID } from 'node:crypto';
import { eventSubject, type EventEnvelope, type NatsConnection, type Redis } from '@kith/platform';
import type { Presence, PresencePort, PresenceReader, PresenceView, SessionReplies } from '../domain/ports.js';

/** Who a user's presence goes to beyond their guilds. */
export interface FriendsSource {
  friendIds(userId: string): Promise<string[]>;
}

const SERVICE = 'realtime';
const PRESENCE_UPDATE = 'PRESENCE_UPDATE';

/**
 * A user's presence kept in Redis (for as long as a session can be resumed) and published on the
 * event stream as PRESENCE_UPDATE: once to their friends, and once per guild to its members with
 * the guild's id, as the platform sends it. A presence is a moment's state, not a change of
 * record: it goes straight to the stream, without an outbox.
 */
export class PresencePublisher implements PresencePort, PresenceReader, SessionReplies {
  constructor(
    private readonly redis: Redis,
    private readonly nats: NatsConnection,
    private readonly friends: FriendsSource | undefined,
    private readonly ttlMs: number,
  ) {}

  async update(userId: string, presence: Presence, guildIds: readonly string[]): Promise<void> {
    const data = { user: { id: userId }, status: presence.status, activities: presence.activities, client_status: clientStatus(presence) };
    await this.redis.set(`presence:${userId}`, JSON.stringify(data), 'PX', this.ttlMs);
    const friendIds = this.friends ? await this.friends.friendIds(userId) : [];
    const js = this.nats.jetstream();
    const events: EventEnvelope[] = [];
    if (friendIds.length > 0) events.push(envelope({ users: friendIds }, data));
    for (const guildId of guildIds) events.push(envelope({ guilds: [guildId] }, { ...data, guild_id: guildId }));
    await Promise.all(events.map((e) => js.publish(eventSubject(SERVICE, PRESENCE_UPDATE), JSON.stringify(e), { msgID: e.id })));
  }

  /**
   * A user is present while any of their connections is (the connection counts, any replica),
   * as they last set it, or plain online when they never did (or it outlived the kept copy).
   */
  async presences(userIds: readonly string[]): Promise<PresenceView[]> {
    if (userIds.length === 0) return [];
    const [counts, kept] = await Promise.all([
      this.redis.mget(userIds.map((id) => `connections:${id}`)),
      this.redis.mget(userIds.map((id) => `presence:${id}`)),
    ]);
    return userIds.flatMap((id, i) => {
      if (Number(counts[i] ?? 0) <= 0) return [];
      const stored = kept[i];
      const presence = stored
        ? (JSON.parse(stored) as PresenceView)
        : { user: { id }, status: 'online', activities: [], client_status: { web: 'online' } };
      return presence.status === 'offline' ? [] : [presence];
    });
  }

  /** Only the named gateway session gets it: the user's other sessions skip it (delivery's rule). */
  async send(session: { id: string; userId: string }, name: string, data: unknown): Promise<void> {
    const e: EventEnvelope = { ...envelope({ users: [session.userId] }, data), name, internal: { gateway_session_id: session.id } };
    await this.nats.jetstream().publish(eventSubject(SERVICE, name), JSON.stringify(e), { msgID: e.id });
  }
}

/** The platform names the platforms a user is on with the status there; Kith's gateway serves web-like clients. */
const clientStatus = (presence: Presence) => (presence.status === 'offline' ? {} : { web: presence.status });

const envelope = (audience: EventEnvelope['audience'], data: unknown): EventEnvelope => ({
  id: randomUUID(),
  service: SERVICE,
  name: PRESENCE_UPDATE,
  occurred_at: new Date().toISOString(),
  audience,
  data,
});
