import type { KeyObject } from 'node:crypto';
import { ApiError } from './errors.js';
import { ed25519PrivateKey, ed25519PublicKey, readJws, signJws } from './jws.js';

/** The header that carries the gateway-signed identity. The gateway strips any client-sent copy. */
export const INTERNAL_IDENTITY_HEADER = 'x-internal-identity';
/**
 * A service's answer names the sessions it just ended here (comma-separated ids), so the edge that
 * relays the answer stops accepting their tokens before the client sees it. The edge strips it.
 */
export const REVOKED_SESSIONS_HEADER = 'x-internal-revoked-sessions';
const ISSUER = 'kith-gateway';
/** Short-lived: a leaked token is worthless within a minute. */
export const IDENTITY_TTL_SECONDS = 30;
/** Clock skew allowed between the gateway and a service. */
const CLOCK_TOLERANCE_SECONDS = 5;

/** Who is calling, as the gateway established it. An anonymous request has no user. */
export interface Identity {
  userId: string | null;
  sessionId: string | null;
  clientIp: string;
  /**
   * The edge's id for this request. The gateway does not sign it (a signed identity is reused
   * across requests): services take it from `x-request-id`, which only the edge sets.
   */
  requestId: string;
  fingerprint: string | null;
}

/** What the signer puts in a token; `requestId` only for callers that sign per request (tests). */
export type SignableIdentity = Omit<Identity, 'requestId'> & { requestId?: string };

export interface SignerOptions {
  /**
   * For how long a token signed for one (audience, user, session, address, fingerprint) is handed
   * out again instead of signing anew; 0 signs every time. Keep it well inside the token's life
   * (IDENTITY_TTL_SECONDS) so a reused token still has most of it left when it arrives.
   */
  reuseMs?: number;
  /** How many reusable tokens are kept at most. */
  maxEntries?: number;
  now?: () => number;
}

export interface VerifierOptions {
  /** How many verified tokens are remembered (until their expiry) at most; 0 remembers none. */
  maxEntries?: number;
  now?: () => number;
}

interface Claims {
  iss?: unknown;
  aud?: unknown;
  sub?: unknown;
  iat?: unknown;
  exp?: unknown;
  nbf?: unknown;
  sid?: unknown;
  ip?: unknown;
  rid?: unknown;
  fp?: unknown;
}

/* The tokens are compact JWS (jws.ts), checked against jose both ways by the tests. */

export class IdentitySigner {
  private readonly reused = new Map<string, { token: string; signedAt: number }>();
  private readonly reuseMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  private constructor(
    private readonly key: KeyObject,
    options: SignerOptions,
  ) {
    this.reuseMs = Math.min(options.reuseMs ?? 0, 10_000);
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  static async fromPem(privateKeyPem: string, options: SignerOptions = {}): Promise<IdentitySigner> {
    return new IdentitySigner(ed25519PrivateKey(privateKeyPem), options);
  }

  /** Signs the identity for one request to one service (audience = the service's name). */
  async sign(identity: SignableIdentity, audience: string): Promise<string> {
    return this.signSync(identity, audience);
  }

  signSync(identity: SignableIdentity, audience: string): string {
    if (this.reuseMs <= 0 || identity.requestId) return this.signNow(identity, audience);
    // Header values cannot hold a NUL, so no two identities share a key.
    const key = `${audience}\0${identity.userId ?? ''}\0${identity.sessionId ?? ''}\0${identity.clientIp}\0${identity.fingerprint ?? ''}`;
    const now = this.now();
    const hit = this.reused.get(key);
    if (hit && now - hit.signedAt < this.reuseMs && now >= hit.signedAt) return hit.token;
    const token = this.signNow(identity, audience);
    this.reused.delete(key);
    if (this.reused.size >= this.maxEntries) this.reused.delete(this.reused.keys().next().value!);
    this.reused.set(key, { token, signedAt: now });
    return token;
  }

  private signNow(identity: SignableIdentity, audience: string): string {
    const now = Math.floor(this.now() / 1000);
    const claims: Record<string, string | number> = { iss: ISSUER, aud: audience, iat: now, exp: now + IDENTITY_TTL_SECONDS };
    if (identity.userId) claims.sub = identity.userId;
    if (identity.sessionId) claims.sid = identity.sessionId;
    claims.ip = identity.clientIp;
    if (identity.requestId) claims.rid = identity.requestId;
    if (identity.fingerprint) claims.fp = identity.fingerprint;
    return signJws(claims, this.key);
  }
}

/**
 * Checks the edge's tokens. A token that verified is remembered by its exact text, so the same
 * token (the edge reuses one for a few seconds) costs a map lookup, not a signature check; its
 * lifetime claims are checked again on every use, so expiry holds on a hit too. Only tokens that
 * passed the full check are remembered: a forged one never matches.
 */
export class IdentityVerifier {
  private readonly verified = new Map<string, { identity: Identity; claims: Claims }>();
  private readonly maxEntries: number;
  private readonly now: () => number;

  private constructor(
    private readonly key: KeyObject,
    private readonly audience: string,
    options: VerifierOptions,
  ) {
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  static async fromPem(publicKeyPem: string, audience: string, options: VerifierOptions = {}): Promise<IdentityVerifier> {
    return new IdentityVerifier(ed25519PublicKey(publicKeyPem), audience, options);
  }

  /** The identity in a signed token; a missing, forged, expired or misaddressed token is a 401. */
  async verify(token: string | undefined): Promise<Identity> {
    return this.verifySync(token);
  }

  /** A fresh object each call: callers may fill in the request id. */
  verifySync(token: string | undefined): Identity {
    if (!token) throw ApiError.unauthorized();
    const hit = this.verified.get(token);
    if (hit) {
      if (this.claimsValid(hit.claims)) return { ...hit.identity };
      this.verified.delete(token);
      throw ApiError.unauthorized();
    }
    const claims = this.check(token);
    if (!claims) throw ApiError.unauthorized();
    const identity: Identity = {
      userId: typeof claims.sub === 'string' ? claims.sub : null,
      sessionId: typeof claims.sid === 'string' ? claims.sid : null,
      clientIp: typeof claims.ip === 'string' ? claims.ip : '',
      requestId: typeof claims.rid === 'string' ? claims.rid : '',
      fingerprint: typeof claims.fp === 'string' ? claims.fp : null,
    };
    if (this.maxEntries > 0) {
      // Insertion order is close to expiry order: the oldest is the first to go.
      if (this.verified.size >= this.maxEntries) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(token, { identity, claims });
    }
    return { ...identity };
  }

  get cachedCount(): number {
    return this.verified.size;
  }
  private check(token: string): Claims | undefined {
    const claims = readJws(token, this.key) as Claims | undefined;
    return claims && this.claimsValid(claims) ? claims : undefined;
  }

  private claimsValid(claims: Claims): boolean {
    const now = Math.floor(this.now() / 1000);
    const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (claims.iss !== ISSUER || !audiences.includes(this.audience)) return false;
    if (typeof claims.exp !== 'number' || claims.exp <= now - CLOCK_TOLERANCE_SECONDS) return false;
    if (
      typeof claims.iat !== 'number' ||
      now - claims.iat > IDENTITY_TTL_SECONDS + CLOCK_TOLERANCE_SECONDS ||
      claims.iat > now + CLOCK_TOLERANCE_SECONDS
    )
      return false;
    if (claims.nbf !== undefined && (typeof claims.nbf !== 'number' || claims.nbf > now + CLOCK_TOLERANCE_SECONDS)) return false;
    return true;
  }
}
