import type { DomainEvent } from '@kith/platform';
import type { RevokedSession } from '../domain/ports.js';

/**
 * The dispatch a user's clients receive when one of their sessions ends. It reaches the edge and
 * realtime through the outbox as `events.auth.AUTH_SESSION_CHANGE`: the edge drops the revoked
 * sessions' cached tokens, realtime closes their sockets (4004) and tells the user's other sockets.
 */
export const AUTH_SESSION_CHANGE = 'AUTH_SESSION_CHANGE';

export interface AuthSessionChange {
  auth_session_id_hash: string;
}

/**
 * One event per ended session, as the platform sends one AUTH_SESSION_CHANGE per session: each
 * names its session's hash to the clients and, internally, its id to the edge and realtime.
 */
export function sessionChangeEvents(userId: string, revoked: RevokedSession[]): DomainEvent<AuthSessionChange>[] {
  return revoked.map((session) => ({
    name: AUTH_SESSION_CHANGE,
    audience: { users: [userId] },
    data: { auth_session_id_hash: session.id_hash },
    internal: { revoked_session_ids: [session.id] },
  }));
}
