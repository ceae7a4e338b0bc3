import type { NatsConnection } from '@kith/platform';
import type { SessionEvents } from '../domain/sessions.service.js';

/** Core-NATS subject the edge gateway listens on to drop cached sessions at once. */
export const SESSION_REVOKED_SUBJECT = 'kith.auth.sessions.revoked';

export class NatsSessionEvents implements SessionEvents {
  constructor(private readonly nc: NatsConnection) {}

  async revoked(userId: string, sessionIds: string[]): Promise<void> {
    this.nc.publish(SESSION_REVOKED_SUBJECT, JSON.stringify({ user_id: userId, session_ids: sessionIds }));
    // Flush so the edge hears of it before the client sees the 204 and tries the token again.
    await this.nc.flush();
  }
}
