import type { Redis } from 'ioredis';
import type { NatsConnection } from 'nats';
import { eventSubject } from '@kith/platform';
import type { ConnectionCountsPort } from '../domain/ports.js';
import { publishDirect } from '../events/direct.publish.js';

/** Announced when a user's last connection, on any replica, closes. Never sent to clients (no audience). */
export const SESSIONS_ENDED = 'SESSIONS_ENDED';
export const SESSIONS_ENDED_SUBJECT = eventSubject('realtime', SESSIONS_ENDED);
/** Announced when a connection holding a guest's access (a guest invite's session) closes. */
export const GUEST_SESSION_ENDED = 'GUEST_SESSION_ENDED';
export const GUEST_SESSION_ENDED_SUBJECT = eventSubject('realtime', GUEST_SESSION_ENDED);

/** One count down; the key goes at zero so a user who never comes back leaves nothing behind. */
const COUNT_OFF = `local n = redis.call('DECR', KEYS[1])
if n <= 0 then redis.call('DEL', KEYS[1]) end
return n`;

/**
 * Each user's ready connections, counted in Redis so every replica sees the same number. The
 * announcement goes to the EVENTS stream (JetStream acknowledges it; the message id drops a copy).
 * A replica that dies without closing its sockets leaves its counts up: those users' temporary
 * memberships then end at their next last disconnect.
 */
export class RedisConnectionCounts implements ConnectionCountsPort {
  constructor(
    private readonly redis: Redis,
    private readonly nats: NatsConnection,
  ) {}

  private key = (userId: string) => `connections:${userId}`;

  async online(userId: string): Promise<void> {
    await this.redis.incr(this.key(userId));
  }

  async offline(userId: string): Promise<void> {
    const left = (await this.redis.eval(COUNT_OFF, 1, this.key(userId))) as number;
    if (left > 0) return;
    await this.announce(SESSIONS_ENDED, { user_id: userId });
  }

  async guestLeft(userId: string, sessionId: string, guildIds: readonly string[]): Promise<void> {
    await this.announce(GUEST_SESSION_ENDED, { user_id: userId, session_id: sessionId, guild_ids: [...guildIds] });
  }

  private announce(name: string, data: Record<string, unknown>): Promise<void> {
    return publishDirect(this.nats, [{ name, audience: { users: [] }, data }]);
  }
}
