import type { DomainEvent } from '@kith/platform';
import type { RevokedSession } from '../domain/ports.js';
import { sessionIdHash } from '../domain/tokens.js';

/**
 * The dispatch that tells a connection its own auth session changed. It reaches the edge and
 * realtime through the outbox as `events.auth.AUTH_SESSION_CHANGE`: the edge drops the revoked
 * sessions' cached tokens; realtime closes the sockets of a session that ended (4004) and moves
 * those of a session that was replaced (a password change: the caller's session goes on as the new
 * one) to the new session, telling them its hash.
 */
export const AUTH_SESSION_CHANGE = 'AUTH_SESSION_CHANGE';

export interface AuthSessionChange {
  auth_session_id_hash: string;
}

/** The caller's session `from` goes on as `to` (a credential change gave the caller a new token). */
export interface SessionMove {
  from: string;
  to: string;
}

/**
 * One event per ended session, as the platform sends one AUTH_SESSION_CHANGE per session. Each
 * names its session's id internally; the one `move` replaces carries the new session, whose hash
 * is what its sockets are told.
 */
export function sessionChangeEvents(userId: string, revoked: RevokedSession[], move?: SessionMove): DomainEvent<AuthSessionChange>[] {
  return revoked.map((session) => {
    const to = move?.from === session.id ? { id: move.to, id_hash: sessionIdHash(move.to) } : undefined;
    return {
      name: AUTH_SESSION_CHANGE,
      audience: { users: [userId] },
      data: { auth_session_id_hash: to ? to.id_hash : session.id_hash },
      internal: { revoked_session_ids: [session.id], ...(to ? { moved_to_session: to } : {}) },
    };
  });
}
