import { sessionChangeEvents, type SessionMove } from '../events/session.events.js';
import { clientInfoFrom } from './client-info.js';
import { sourceOf } from './guards/sources.js';
import { hashToken, newSessionId, newToken, sessionIdHash } from './tokens.js';
import type { ActiveSession, SessionRow, SessionsPort } from './ports.js';

/** What the HTTP layer knows of the client creating or using a session. */
export interface SessionRequest {
  clientIp: string;
  /** The caller's own session, when the request came with a token: a new token replaces it. */
  currentSessionId?: string;
  userAgent?: string;
  superProperties?: string;
}

export interface SessionsOptions {
  idleDays: number;
  touchIntervalMs: number;
}

export const MAX_LISTED_SESSIONS = 50;

/** A bot's token does not idle out: it lives until its developer resets it. */
export const BOT_TOKEN_EXPIRY = new Date('9999-12-31T23:59:59Z');

export class SessionsService {
  constructor(
    private readonly store: SessionsPort,
    private readonly options: SessionsOptions,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async create(userId: string, request: SessionRequest): Promise<{ token: string; sessionId: string }> {
    const { token, hash } = newToken(userId);
    const { id, idHash } = newSessionId();
    const info = clientInfoFrom(request, request.clientIp);
    const now = this.now();
    await this.store.insert(
      {
        id,
        id_hash: idHash,
        user_id: userId,
        token_hash: hash,
        last_used_at: now,
        expires_at: this.expiryFrom(now),
        client_os: info.os,
        client_platform: info.platform,
        client_location: info.location,
        client_ip: request.clientIp || null,
        revoked_at: null,
      },
      sourceOf(request.clientIp),
    );
    return { token, sessionId: id };
  }

  /** The live session behind a token, recording its use at most once per touch interval. */
  async validate(token: string, clientIp: string): Promise<ActiveSession | undefined> {
    if (!token || token.length > 512) return undefined;
    const session = await this.store.findActiveByTokenHash(hashToken(token));
    if (!session) return undefined;
    // Sliding a bot's expiry would give its never-idle token an idle limit.
    if (session.bot) return session;
    const now = this.now();
    if (now.getTime() - session.last_used_at.getTime() >= this.options.touchIntervalMs) {
      await this.store.touch(session.id, now, this.expiryFrom(now), clientIp || null);
    }
    return session;
  }

  /**
   * A new token for a bot user (its developer's reset), in one transaction with the revocation of
   * every earlier one and their AUTH_SESSION_CHANGE events: the edge forgets them and their sockets
   * close. Concurrent resets are serialised on the user, so exactly one token stays live.
   */
  async replaceBotToken(userId: string): Promise<string> {
    const { token, hash } = newToken(userId);
    const { id, idHash } = newSessionId();
    const now = this.now();
    await this.store.transaction(async (tx) => {
      const revoked = await tx.revokeAllOf(userId);
      await tx.insert({
        id,
        id_hash: idHash,
        user_id: userId,
        token_hash: hash,
        last_used_at: now,
        expires_at: BOT_TOKEN_EXPIRY,
        client_os: null,
        client_platform: null,
        client_location: null,
        client_ip: null,
        revoked_at: null,
      });
      await tx.enqueue(sessionChangeEvents(userId, revoked));
    });
    return token;
  }

  async list(userId: string) {
    const rows = await this.store.listActive(userId, MAX_LISTED_SESSIONS);
    return rows.map(sessionView);
  }

  /**
   * Logs out the caller's own sessions named by hash; hashes of other users' sessions do nothing.
   * Each revoked session's AUTH_SESSION_CHANGE commits with the revocation, so the edge and the
   * sockets hear of exactly the sessions that ended; `move` names the one that goes on as another.
   */
  logoutByHashes(userId: string, idHashes: string[], move?: SessionMove): Promise<string[]> {
    return this.store.transaction(async (tx) => {
      const revoked = await tx.revokeByHashes(userId, [...new Set(idHashes)]);
      await tx.enqueue(sessionChangeEvents(userId, revoked, move));
      return revoked.map((s) => s.id);
    });
  }

  /**
   * Ends the caller's own session, with its AUTH_SESSION_CHANGE, and unregisters the device push
   * tokens the logout names (the session's own go with it); returns its id when it was still live.
   */
  logout(userId: string, sessionId: string, pushTokens: { provider: string; token: string }[] = []): Promise<string[]> {
    return this.store.transaction(async (tx) => {
      await tx.forgetPushTokens(userId, pushTokens);
      const revoked = await tx.revoke(sessionId);
      if (!revoked) return [];
      await tx.enqueue(sessionChangeEvents(userId, [revoked]));
      return [revoked.id];
    });
  }

  private expiryFrom(date: Date): Date {
    return new Date(date.getTime() + this.options.idleDays * 86_400_000);
  }
}

function sessionView(row: SessionRow) {
  return {
    id_hash: row.id_hash,
    approx_last_used_time: row.last_used_at.toISOString(),
    client_info: { os: row.client_os, platform: row.client_platform, location: row.client_location },
  };
}

export { sessionIdHash };
