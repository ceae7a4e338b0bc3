import { ApiError } from '@kith/platform';
import type { ElevationTokens } from './elevation-token.js';
import type { CodeFactor, MfaService } from './mfa.service.js';
import { SecondFactors } from './factors.js';
import { smsEnabled } from './sms.js';
import type { Tickets } from './tickets.js';
import type { WebAuthn } from './webauthn.js';
import type { UserRow } from '../ports.js';

/** What a request may carry as proof of a recent verification: the JWT in a header or the cookie, and whose session it is. */
export interface ElevationProof {
  headers: (string | undefined)[];
  cookie?: string | undefined;
  /** The session the request comes from: a JWT proves only the session that earned it. */
  sessionId: string | undefined;
}

export type MfaMethod =
  { type: 'webauthn'; challenge: string } | { type: 'totp'; backup_codes_allowed: boolean } | { type: 'sms' } | { type: 'password' };

/** Checks an SMS code texted for a ticket (`POST /auth/mfa/sms/send`). */
export interface SmsCodeCheck {
  verify(ticket: string, user: UserRow, code: string): Promise<boolean>;
}

export const ELEVATION_COOKIE = '__Secure-recent_mfa';

/**
 * Sensitive actions need a recent verification: a valid elevation JWT for the user, else the
 * platform's 60003 body with a fresh elevation ticket and the methods the user can verify with.
 */
export class ElevationGuard {
  private readonly factors: SecondFactors;

  constructor(
    private readonly tokens: ElevationTokens,
    private readonly tickets: Tickets,
    private readonly mfa: MfaService,
    sms?: SmsCodeCheck,
    private readonly webauthn?: Pick<WebAuthn, 'requestOptions' | 'verify'>,
  ) {
    this.factors = new SecondFactors({ mfa, sms, webauthn });
  }

  /** Costs one HMAC when a valid token is present; only the refusal touches the stores. */
  async require(userId: string, proof: ElevationProof): Promise<void> {
    const { sessionId } = proof;
    if (sessionId) for (const token of [...proof.headers, proof.cookie]) if (this.tokens.verify(token, userId, sessionId)) return;
    const refusal = await this.refusal(userId, sessionId);
    if (refusal) throw refusal;
  }

  /**
   * The 60003 error for this user, with a ticket only the asking session may use; nothing for an
   * account with neither a password nor MFA (unclaimed): its session is the only proof there is.
   */
  private async refusal(userId: string, sessionId: string | undefined): Promise<ApiError | undefined> {
    const user = await this.mfa.user(userId);
    if (user.password_hash === null && !user.mfa_enabled) return undefined;
    const ticket = await this.tickets.issue({ userId, purpose: 'elevation', ...(sessionId ? { sessionId } : {}) });
    const challenge = await this.webauthn?.requestOptions(user, ticket);
    const methods: MfaMethod[] = challenge ? [{ type: 'webauthn', challenge }, ...methodsOf(user)] : methodsOf(user);
    return ApiError.of('MFA_REQUIRED', { mfa: { ticket, methods } });
  }

  /**
   * `POST /mfa/finish`: checks the factor against the caller's elevation ticket (one counted attempt)
   * and answers a JWT for the caller's session alone.
   */
  async finish(userId: string, sessionId: string, input: { ticket: string; mfa_type: string; data: string }): Promise<string> {
    const record = await this.tickets.attempt(input.ticket, 'elevation');
    if (record.userId !== userId || record.sessionId !== sessionId) throw ApiError.of('MFA_INVALID_TICKET');
    const user = await this.mfa.user(userId);
    if (!(await this.proves(user, input))) this.tickets.reject();
    await this.tickets.consume(input.ticket);
    return this.tokens.sign(userId, sessionId);
  }

  private proves(user: UserRow, input: { ticket: string; mfa_type: string; data: string }): Promise<boolean> {
    if (input.mfa_type !== 'password' && input.mfa_type !== 'totp' && input.mfa_type !== 'backup')
      return this.factors.proves(user, input.mfa_type, input.ticket, input.data);
    return methodsAllow(user, input.mfa_type) ? this.mfa.verify(user, input.mfa_type, input.data) : Promise.resolve(false);
  }
}

export function methodsOf(user: UserRow): MfaMethod[] {
  if (!user.mfa_enabled) return [{ type: 'password' }];
  return smsEnabled(user)
    ? [{ type: 'totp', backup_codes_allowed: true }, { type: 'sms' }]
    : [{ type: 'totp', backup_codes_allowed: true }];
}

function methodsAllow(user: UserRow, factor: CodeFactor): boolean {
  return user.mfa_enabled ? factor !== 'password' : factor === 'password';
}
