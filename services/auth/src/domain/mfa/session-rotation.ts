import type { SessionMove } from '../../events/session.events.js';
import type { SessionRequest, SessionsService } from '../sessions.service.js';
import { sessionIdHash } from '../tokens.js';

type Sessions = Pick<SessionsService, 'create' | 'list' | 'logoutByHashes'>;

/** Bounds the loop below; each round ends up to a page (50) of sessions. */
const MAX_ROUNDS = 100;

/**
 * Ends the user's live sessions except `keep`, through the sessions service so each end fires
 * AUTH_SESSION_CHANGE; returns the ended ids for the edge. Pages through the listing, which only
 * shows live sessions, until nothing but `keep` is left.
 */
export async function endSessions(sessions: Sessions, userId: string, keepIdHash?: string, move?: SessionMove): Promise<string[]> {
  const ended: string[] = [];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const hashes = (await sessions.list(userId)).map((s) => s.id_hash).filter((h) => h !== keepIdHash);
    if (hashes.length === 0) break;
    ended.push(...(await sessions.logoutByHashes(userId, hashes, move)));
  }
  return ended;
}

/**
 * The platform's "new token" after a credential change: a fresh session for the caller, and every
 * other session ended. The caller's old one goes on as the new one: its sockets stay open and are
 * told the new session (AUTH_SESSION_CHANGE), where every other session's sockets close.
 */
export async function rotateSessions(sessions: Sessions, userId: string, request: SessionRequest) {
  const { token, sessionId } = await sessions.create(userId, request);
  const move = request.currentSessionId ? { from: request.currentSessionId, to: sessionId } : undefined;
  const revoked = await endSessions(sessions, userId, sessionIdHash(sessionId), move);
  return { token, revoked };
}
