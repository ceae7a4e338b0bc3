import type { NatsConnection } from 'nats';
import { eventSubject, followEvents, isSnowflake, type Logger } from '@kith/platform';
import type { MembershipService } from '../domain/membership.service.js';

/** Realtime announces here that a user's last gateway connection closed. */
export const SESSIONS_ENDED_SUBJECT = eventSubject('realtime', 'SESSIONS_ENDED');

/** Ends temporary memberships when their members go offline (see MembershipService.endTemporary). */
export function followSessionsEnded(nc: NatsConnection, membership: MembershipService, logger: Logger): Promise<{ close(): void }> {
  return followEvents(
    nc,
    [{ subject: SESSIONS_ENDED_SUBJECT, durable: 'guilds-sessions-ended' }],
    async (event) => {
      const userId = (event.data as { user_id?: unknown } | undefined)?.user_id;
      if (typeof userId === 'string' && isSnowflake(userId)) await membership.endTemporary(userId);
    },
    logger,
  );
}
