import { randomUUID } from 'node:crypto';
import { eventSubject, type EventEnvelope, type NatsConnection, type Redis } from '@kith/platform';
import type { Presence, PresencePort } from '../domain/ports.js';

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
export class PresencePublisher implements PresencePort {
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
