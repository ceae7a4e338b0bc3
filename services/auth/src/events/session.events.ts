import type { NatsConnection } from '@kith/platform';
import type { SessionEvents } from '../domain/sessions.service.js';

/**
 * Core-NATS subject every edge replica listens on to drop cached sessions. The edge that relays
 * the logout learns it from the answer itself (REVOKED_SESSIONS_HEADER); this reaches the others.
 */
export const SESSION_REVOKED_SUBJECT = 'kith.auth.sessions.revoked';

export class NatsSessionEvents implements SessionEvents {
  constructor(private readonly nc: NatsConnection) {}

  async revoked(userId: string, sessionIds: string[]): Promise<void> {
    this.nc.publish(SESSION_REVOKED_SUBJECT, JSON.stringify({ user_id: userId, session_ids: sessionIds }));
    // Flush so other edges hear of it within a round trip, not whenever the client next writes.
    await this.nc.flush();
  }
}
