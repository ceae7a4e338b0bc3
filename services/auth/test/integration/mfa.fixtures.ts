import type { Identity } from '@kith/platform';
import { Secret, TOTP } from 'otpauth';
import { expect } from 'vitest';
import type { Account, AuthHarness, Reply } from './auth.harness.js';

export interface BackupCode {
  user_id: string;
  code: string;
  consumed: boolean;
}

export interface MfaRequired {
  code: number;
  message: string;
  mfa: { ticket: string; methods: { type: string; backup_codes_allowed?: boolean }[] };
}

/** A fresh secret as an authenticator app would create it (160 bits, base32). */
export const newSecret = (): string => new Secret({ size: 20 }).base32;

/** The real code of the secret `offsetSteps` 30-second steps from now. */
export const codeAt = (secret: string, offsetSteps = 0): string =>
  new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + offsetSteps * 30_000 });

export interface EnrolledAccount extends Account {
  secret: string;
  backupCodes: BackupCode[];
}

/** Registers a user and enrolls it in TOTP with the current step's code (so the next step's code is free). */
export async function enrolledAccount(auth: AuthHarness): Promise<EnrolledAccount> {
  const account = await auth.register();
  const secret = newSecret();
  const reply = await auth.request<{ token: string; backup_codes: BackupCode[] }>('POST', '/users/@me/mfa/totp/enable', {
    identity: account.identity,
    body: { password: account.password, secret, code: codeAt(secret) },
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  const identity = await auth.identityOf(reply.body.token);
  return { ...account, token: reply.body.token, sessionId: identity.sessionId!, identity, secret, backupCodes: reply.body.backup_codes };
}

/** Asserts the 60003 answer and returns its body. */
export function expectMfaRequired(reply: Reply, methods: MfaRequired['mfa']['methods']): MfaRequired {
  expect(reply.status, JSON.stringify(reply.body)).toBe(401);
  expect(reply.body).toEqual({
    code: 60003,
    message: 'Two factor is required for this operation',
    mfa: { ticket: expect.any(String), methods },
  });
  return reply.body as MfaRequired;
}

/** `POST /mfa/finish` for the 60003 answer; returns the JWT and the cookie it set. */
export async function finishMfa(auth: AuthHarness, identity: Partial<Identity>, required: MfaRequired, mfaType: string, data: string) {
  const reply = await auth.request<{ token: string }>('POST', '/mfa/finish', {
    identity,
    body: { ticket: required.mfa.ticket, mfa_type: mfaType, data },
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  const cookie = reply.headers.get('set-cookie') ?? '';
  return { token: reply.body.token, cookie };
}

/** The three ways a client may show the elevation JWT. */
export const proofForms = (jwt: string): Record<string, Record<string, string>> => ({
  'X-Discord-MFA-Authorization': { 'x-discord-mfa-authorization': jwt },
  'X-Service-MFA-Authorization': { 'x-service-mfa-authorization': jwt },
  cookie: { cookie: `__Secure-recent_mfa=${jwt}` },
});
