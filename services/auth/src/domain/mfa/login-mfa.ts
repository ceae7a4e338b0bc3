import { randomUUID } from 'node:crypto';
import { ApiError } from '@kith/platform';
import type { SessionRequest } from '../sessions.service.js';
import type { SmsCodeCheck } from './elevation.js';
import type { MfaService } from './mfa.service.js';
import { SECOND_FACTOR_TYPES, SecondFactors } from './factors.js';
import type { Tickets } from './tickets.js';
import type { WebAuthn } from './webauthn.js';
import { loginSettings, requiredActionsOf } from '../user.view.js';
import type { UserRow } from '../ports.js';

/** The login answer when a second factor is due: no token, the ticket and which factors apply. */
export interface MfaLoginChallenge {
  user_id: string;
  mfa: true;
  ticket: string;
  login_instance_id: string;
  totp: boolean;
  sms: boolean;
  backup: boolean;
  webauthn: string | null;
}

export interface FinishLoginInput {
  ticket: string;
  code: string;
  login_instance_id?: string | null | undefined;
}

export interface LoginMfaPorts {
  mfa: MfaService;
  tickets: Tickets;
  sessions: { create(userId: string, request: SessionRequest): Promise<{ token: string }> };
  /** Lifts a disable or a scheduled deletion (login with `undelete: true`). */
  restore(userId: string): Promise<void>;
  /** SMS codes texted for a ticket; without it SMS is never offered. */
  sms?: SmsCodeCheck;
  /** WebAuthn assertions; without it `webauthn` is never offered. */
  webauthn?: Pick<WebAuthn, 'requestOptions' | 'verify'>;
  /** Account standing, asked again once the second factor passes: an operator may have acted meanwhile. */
  standing?: { admit(user: UserRow, password: string | undefined): Promise<string[]> };
}

/** The second half of a login for users with MFA: the ticket, then `POST /auth/mfa/{type}`. */
export class LoginMfa {
  private readonly factors: SecondFactors;

  constructor(private readonly ports: LoginMfaPorts) {
    this.factors = new SecondFactors(ports);
  }

  async challenge(user: UserRow, undelete: boolean, requiredActions: string[] = []): Promise<MfaLoginChallenge> {
    const loginInstanceId = randomUUID();
    const ticket = await this.ports.tickets.issue({
      userId: user.id,
      purpose: 'login',
      loginInstanceId,
      undelete,
      ...(requiredActions.length ? { requiredActions } : {}),
    });
    return { user_id: user.id, mfa: true, ticket, login_instance_id: loginInstanceId, ...(await this.factors.offered(user, ticket)) };
  }

  async finish(type: string, input: FinishLoginInput, request: SessionRequest) {
    const { tickets, mfa } = this.ports;
    if (!SECOND_FACTOR_TYPES.includes(type)) throw ApiError.of('MFA_INVALID_CODE');
    const record = await tickets.attempt(input.ticket, 'login', input.login_instance_id);
    const user = await mfa.user(record.userId);
    if (!(await this.factors.proves(user, type, input.ticket, input.code))) tickets.reject();
    await tickets.consume(input.ticket);
    // The password was judged at login; the account's standing is judged now, as for any token.
    const now = (await this.ports.standing?.admit(user, undefined)) ?? [];
    const requiredActions = [...new Set([...(record.requiredActions ?? []), ...now])];
    if (record.undelete && (user.disabled_at || user.deleted_at)) await this.ports.restore(user.id);
    const { token } = await this.ports.sessions.create(user.id, request);
    return {
      token,
      user_settings: loginSettings(user),
      ...requiredActionsOf(requiredActions),
    };
  }
}
