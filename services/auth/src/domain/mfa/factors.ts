import type { UserRow } from '../ports.js';
import type { SmsCodeCheck } from './elevation.js';
import type { CodeFactor, MfaService } from './mfa.service.js';
import { smsEnabled } from './sms.js';
import type { WebAuthn } from './webauthn.js';

/** What a challenge (login, reset) offers: every second factor the account has. */
export interface OfferedFactors {
  totp: boolean;
  sms: boolean;
  backup: boolean;
  /** The stringified request options for the ticket's challenge; null without a security key. */
  webauthn: string | null;
}

export interface SecondFactorPorts {
  mfa: Pick<MfaService, 'verify' | 'guessSecondFactor'>;
  /** SMS codes texted for a ticket; without it SMS is never offered. */
  sms?: SmsCodeCheck | undefined;
  /** Security keys; without it `webauthn` is never offered. */
  webauthn?: Pick<WebAuthn, 'requestOptions' | 'verify'> | undefined;
}

/** The authenticator types a ticket's code can be (`POST /auth/mfa/{type}`, a reset's `method`). */
export const SECOND_FACTOR_TYPES: readonly string[] = ['totp', 'backup', 'sms', 'webauthn'];

/** The second factors of a ticket: what to offer, and whether a code proves one. */
export class SecondFactors {
  constructor(private readonly ports: SecondFactorPorts) {}

  /** Every factor the account has, the security-key challenge bound to this ticket. */
  async offered(user: UserRow, ticket: string): Promise<OfferedFactors> {
    return {
      totp: true,
      sms: this.ports.sms !== undefined && smsEnabled(user),
      backup: true,
      webauthn: (await this.ports.webauthn?.requestOptions(user, ticket)) ?? null,
    };
  }

  /** Whether `code` proves the factor `type` for the ticket: one guess under the account's limit. */
  proves(user: UserRow, type: string, ticket: string, code: string): Promise<boolean> {
    const { mfa, sms, webauthn } = this.ports;
    switch (type) {
      case 'totp':
      case 'backup':
        return mfa.verify(user, type as CodeFactor, code);
      case 'sms':
        return mfa.guessSecondFactor(user, async () => sms !== undefined && smsEnabled(user) && sms.verify(ticket, user, code));
      case 'webauthn':
        return mfa.guessSecondFactor(user, async () => webauthn !== undefined && webauthn.verify(ticket, user, code));
      default:
        return Promise.resolve(false);
    }
  }
}
