import { createHash, randomBytes } from 'node:crypto';
import { ApiError, isSnowflake } from '@kith/platform';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { UserRow, OneTimeValues } from '../ports.js';
import type { CredentialRow, WebAuthnStorePort } from './ports.js';

/** The relying party: its id (a registrable domain), display name and the origins clients sign for. */
export interface RelyingParty {
  id: string;
  name: string;
  origins: string[];
}

export interface WebAuthnPorts {
  store: WebAuthnStorePort;
  /** Challenges by ticket, short-lived. */
  values: OneTimeValues;
  rp: RelyingParty;
  ids: { next(): string };
  users: { user(userId: string): Promise<UserRow> };
  now?: () => number;
}

/** The platform's authenticator object, type 1 (WEBAUTHN). */
export interface AuthenticatorView {
  id: string;
  type: 1;
  name: string;
  last_used: string | null;
  cred_id: string;
}

export const AUTHENTICATOR_WEBAUTHN = 1;
/** A challenge lives as long as the platform's `timeout` (and a ticket) allows. */
export const CHALLENGE_TTL_MS = 5 * 60_000;
const TIMEOUT_MS = 60_000;

const hashOf = (ticket: string): string => createHash('sha256').update(ticket).digest('base64url');
const registrationKey = (ticket: string) => `webauthn:reg:${hashOf(ticket)}`;
const challengeKey = (ticket: string) => `webauthn:challenge:${hashOf(ticket)}`;
const conditionalKey = (ticket: string) => `webauthn:conditional:${hashOf(ticket)}`;

export const authenticatorView = (c: CredentialRow): AuthenticatorView => ({
  id: c.id,
  type: AUTHENTICATOR_WEBAUTHN,
  name: c.name,
  last_used: c.last_used ? c.last_used.toISOString() : null,
  cred_id: c.cred_id,
});

/** A stringified JSON value, or undefined when it is not JSON of an object. */
function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const invalidCredential = () => ApiError.form({ credential: { code: 'BASE_TYPE_INVALID', message: 'Invalid WebAuthn credential.' } });

/**
 * WebAuthn credentials as a second factor and for passwordless login, on @simplewebauthn/server:
 * registration (ticket + creation options, then the attestation), the request options a login or
 * elevation ticket carries, and checking assertions with the signature counter as clone detection.
 */
export class WebAuthn {
  private readonly now: () => number;

  constructor(private readonly ports: WebAuthnPorts) {
    this.now = ports.now ?? Date.now;
  }

  list(userId: string): Promise<AuthenticatorView[]> {
    return this.ports.store.list(userId).then((rows) => rows.map(authenticatorView));
  }

  /** First step of Create WebAuthn Authenticator: a ticket and the stringified creation options. */
  async startRegistration(userId: string): Promise<{ ticket: string; challenge: string }> {
    const user = await this.ports.users.user(userId);
    // Security keys join an authenticator app, as in the platform's clients; they do not replace it.
    if (!user.mfa_enabled) throw ApiError.of('MFA_NOT_ENABLED');
    const existing = await this.ports.store.list(userId);
    const options = await generateRegistrationOptions({
      rpName: this.ports.rp.name,
      rpID: this.ports.rp.id,
      userName: user.username,
      userDisplayName: user.global_name ?? user.username,
      userID: Buffer.from(user.id),
      timeout: TIMEOUT_MS,
      attestationType: 'none',
      excludeCredentials: existing.map((c) => ({ id: c.cred_id, transports: c.transports as AuthenticatorTransport[] })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
    });
    const ticket = `${Buffer.from(userId).toString('base64url')}.${randomBytes(32).toString('base64url')}`;
    await this.ports.values.put(registrationKey(ticket), JSON.stringify({ userId, challenge: options.challenge }), CHALLENGE_TTL_MS);
    return { ticket, challenge: JSON.stringify({ publicKey: options }) };
  }

  /** Second step: checks the attestation against the ticket's challenge and stores the credential. */
  async finishRegistration(userId: string, input: { ticket: string; credential: string; name: string }): Promise<AuthenticatorView> {
    const response = parseJson(input.credential);
    if (!response || typeof response.id !== 'string' || typeof response.response !== 'object') throw invalidCredential();
    const pending = await this.ports.values.take(registrationKey(input.ticket));
    const state = pending ? (JSON.parse(pending) as { userId: string; challenge: string }) : undefined;
    if (!state || state.userId !== userId) throw ApiError.of('MFA_INVALID_TICKET');
    const info = await verifyRegistrationResponse({
      response: response as unknown as RegistrationResponseJSON,
      expectedChallenge: state.challenge,
      expectedOrigin: this.ports.rp.origins,
      expectedRPID: this.ports.rp.id,
      requireUserVerification: false,
    }).catch(() => undefined);
    if (!info?.verified) throw ApiError.of('MFA_INVALID_CODE');
    const { credential } = info.registrationInfo;
    const row = {
      id: this.ports.ids.next(),
      userId,
      credId: credential.id,
      publicKey: Buffer.from(credential.publicKey),
      counter: credential.counter,
      transports: credential.transports ?? [],
      name: input.name,
    };
    if (!(await this.ports.store.insert(row))) throw invalidCredential();
    return { id: row.id, type: AUTHENTICATOR_WEBAUTHN, name: row.name, last_used: null, cred_id: row.credId };
  }

  async rename(userId: string, id: string, name: string): Promise<AuthenticatorView> {
    const row = isSnowflake(id) ? await this.ports.store.rename(userId, id, name) : undefined;
    if (!row) throw ApiError.notFound();
    return authenticatorView(row);
  }

  async remove(userId: string, id: string): Promise<void> {
    if (!isSnowflake(id) || !(await this.ports.store.remove(userId, id))) throw ApiError.notFound();
  }

  /** The stringified request options for a login or elevation ticket; null when the user has no credential. */
  async requestOptions(user: UserRow, ticket: string): Promise<string | null> {
    if (!user.mfa_enabled) return null;
    const credentials = await this.ports.store.list(user.id);
    if (credentials.length === 0) return null;
    const options = await generateAuthenticationOptions({
      rpID: this.ports.rp.id,
      timeout: TIMEOUT_MS,
      userVerification: 'preferred',
      allowCredentials: credentials.map((c) => ({ id: c.cred_id, transports: c.transports as AuthenticatorTransport[] })),
    });
    await this.ports.values.put(challengeKey(ticket), options.challenge, CHALLENGE_TTL_MS);
    return JSON.stringify({ publicKey: options });
  }

  /** Whether `code` (a stringified assertion) proves the user for this ticket's challenge. */
  async verify(ticket: string, user: UserRow, code: string): Promise<boolean> {
    if (!user.mfa_enabled) return false;
    const challenge = await this.ports.values.get(challengeKey(ticket));
    if (!challenge) return false;
    const credential = await this.assert(code, challenge, false);
    return credential !== undefined && credential.user_id === user.id;
  }

  /** Start Passwordless / Conditional Login: a ticket and request options without allowCredentials. */
  async startPasswordless(conditional: boolean): Promise<{ ticket: string; challenge: string }> {
    const options = await generateAuthenticationOptions({
      rpID: this.ports.rp.id,
      timeout: TIMEOUT_MS,
      userVerification: 'required',
      allowCredentials: [],
    });
    const ticket = randomBytes(32).toString('base64url');
    await this.ports.values.put(conditionalKey(ticket), options.challenge, CHALLENGE_TTL_MS);
    const challenge = { publicKey: { ...options, extensions: { uvm: true } }, ...(conditional ? { mediation: 'conditional' } : {}) };
    return { ticket, challenge: JSON.stringify(challenge) };
  }

  /** Finish Passwordless Login: the ticket works once; answers whose discoverable credential signed. */
  async finishPasswordless(input: { ticket: string; credential: string }): Promise<string> {
    if (!parseJson(input.credential)) throw invalidCredential();
    const challenge = input.ticket.length <= 256 ? await this.ports.values.take(conditionalKey(input.ticket)) : null;
    if (!challenge) throw ApiError.of('MFA_INVALID_TICKET');
    const credential = await this.assert(input.credential, challenge, true);
    if (!credential) throw ApiError.of('MFA_INVALID_CODE');
    return credential.user_id;
  }

  /** Verifies an assertion for `challenge` and advances the credential's counter; the credential, or undefined. */
  private async assert(code: string, challenge: string, discoverable: boolean): Promise<CredentialRow | undefined> {
    const response = parseJson(code) as unknown as AuthenticationResponseJSON | undefined;
    if (!response || typeof response.id !== 'string' || typeof response.response !== 'object' || response.response === null)
      return undefined;
    const credential = await this.ports.store.byCredId(response.id);
    if (!credential) return undefined;
    // A passkey names its user: it must be the credential's owner.
    const handle = response.response.userHandle;
    if (discoverable && handle !== Buffer.from(credential.user_id).toString('base64url')) return undefined;
    const result = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: this.ports.rp.origins,
      expectedRPID: this.ports.rp.id,
      credential: {
        id: credential.cred_id,
        publicKey: new Uint8Array(credential.public_key),
        counter: credential.counter,
        transports: credential.transports as AuthenticatorTransport[],
      },
      requireUserVerification: discoverable,
    }).catch(() => undefined);
    if (!result?.verified) return undefined;
    // The library refuses a counter that did not grow (a cloned key); the compare-and-set refuses a
    // concurrent use of the same counter value. Authenticators without a counter stay at 0.
    const next = result.authenticationInfo.newCounter;
    if (!(await this.ports.store.advance(credential.id, credential.counter, next, new Date(this.now())))) return undefined;
    return credential;
  }
}
