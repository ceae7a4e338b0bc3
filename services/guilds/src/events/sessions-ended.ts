import type { NatsConnection } from 'nats';
import { eventSubject, followEvents, isSnowflake, type Logger } from '@kith/platform';
import type { MembershipService } from '../domain/membership.service.js';

/** Realtime announces here that a user's last gateway connection closed. */
export const SESSIONS_ENDED_SUBJECT = eventSubject('realtime', 'SESSIONS_ENDED');
/** Realtime announces here that a connection holding a guest's access closed. */
export const GUEST_SESSION_ENDED_SUBJECT = eventSubject('realtime', 'GUEST_SESSION_ENDED');

/** Session ids are realtime's (hex); anything else names no session of ours. */
const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Ends what lasts only while the user is connected: temporary memberships and guest accesses when
 * their last connection goes (see MembershipService.endTemporary), and a guest session's access
 * when its connection goes.
 */
export function followSessionsEnded(
  nc: NatsConnection,
  membership: MembershipService,
  logger: Logger,
  /** The stack's name (its DB_PREFIX): see followEvents. */
  stack: string,
): Promise<{ close(): void }> {
  return followEvents(
    nc,
    stack,
    [
      { subject: SESSIONS_ENDED_SUBJECT, durable: 'guilds-sessions-ended' },
      { subject: GUEST_SESSION_ENDED_SUBJECT, durable: 'guilds-guest-sessions-ended' },
    ],
    async (event) => {
      const data = event.data as { user_id?: unknown; session_id?: unknown } | undefined;
      const userId = data?.user_id;
      if (typeof userId !== 'string' || !isSnowflake(userId)) return;
      if (event.name === 'GUEST_SESSION_ENDED') {
        const sessionId = data?.session_id;
        if (typeof sessionId === 'string' && SESSION_ID.test(sessionId)) await membership.guests.end({ userId, sessionId });
      } else await membership.endTemporary(userId);
    },
    logger,
  );
}
