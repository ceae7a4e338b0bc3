import { ApiError } from '@kith/platform';
import { describe, expect, it } from 'vitest';
import { MemoryTickets } from '../../../test/fakes/tickets.fake.js';
import { SoftAuthenticator } from '../../../test/soft-authenticator.js';
import { WebAuthn } from './webauthn.js';
import type { UserRow } from '../ports.js';
import type { CredentialRow, NewCredential, WebAuthnStorePort } from './ports.js';

class MemoryCredentials implements WebAuthnStorePort {
  readonly rows: CredentialRow[] = [];
  list(userId: string) {
    return Promise.resolve(this.rows.filter((r) => r.user_id === userId));
  }
  byCredId(credId: string) {
    return Promise.resolve(this.rows.find((r) => r.cred_id === credId));
  }
  insert(c: NewCredential) {
    if (this.rows.some((r) => r.cred_id === c.credId)) return Promise.resolve(false);
    this.rows.push({
      id: c.id,
      user_id: c.userId,
      cred_id: c.credId,
      public_key: c.publicKey,
      counter: c.counter,
      transports: c.transports,
      name: c.name,
      last_used: null,
    });
    return Promise.resolve(true);
  }
  rename(userId: string, id: string, name: string) {
    const row = this.rows.find((r) => r.id === id && r.user_id === userId);
    if (row) row.name = name;
    return Promise.resolve(row);
  }
  remove(userId: string, id: string) {
    const i = this.rows.findIndex((r) => r.id === id && r.user_id === userId);
    if (i >= 0) this.rows.splice(i, 1);
    return Promise.resolve(i >= 0);
  }
  advance(id: string, from: number, to: number, at: Date) {
    const row = this.rows.find((r) => r.id === id && r.counter === from);
    if (row) Object.assign(row, { counter: to, last_used: at });
    return Promise.resolve(row !== undefined);
  }
}

const user = (over: Partial<UserRow> = {}) => ({ id: '100', username: 'alice', global_name: null, mfa_enabled: true, ...over }) as UserRow;

function setup(users: UserRow[] = [user()]) {
  const store = new MemoryCredentials();
  let next = 1;
  const webauthn = new WebAuthn({
    store,
    values: new MemoryTickets(),
    rp: { id: 'localhost', name: 'Kith', origins: ['http://localhost:8080'] },
    ids: { next: () => String(next++) },
    users: { user: (id) => Promise.resolve(users.find((u) => u.id === id)!) },
  });
  return { store, webauthn };
}

const codeOf = (err: unknown) => (err instanceof ApiError ? err.body.code : err);

async function registered(webauthn: WebAuthn, key = new SoftAuthenticator()) {
  const { ticket, challenge } = await webauthn.startRegistration('100');
  return webauthn.finishRegistration('100', { ticket, credential: key.create(challenge), name: 'Key' });
}

describe('WebAuthn', () => {
  it('registers only for users with MFA on, once per ticket', async () => {
    const { webauthn } = setup([user({ mfa_enabled: false })]);
    expect(await webauthn.startRegistration('100').catch(codeOf)).toBe(60002);
    const ok = setup();
    const key = new SoftAuthenticator();
    const { ticket, challenge } = await ok.webauthn.startRegistration('100');
    const credential = key.create(challenge);
    expect(await ok.webauthn.finishRegistration('100', { ticket, credential, name: 'Key' })).toMatchObject({
      type: 1,
      name: 'Key',
      cred_id: key.id,
    });
    expect(await ok.webauthn.finishRegistration('100', { ticket, credential, name: 'Key' }).catch(codeOf)).toBe(60006);
  });

  it('verifies assertions for a ticket and refuses a counter that did not grow', async () => {
    const { webauthn, store } = setup();
    const key = new SoftAuthenticator();
    await registered(webauthn, key);
    const options = (await webauthn.requestOptions(user(), 't1'))!;
    expect(await webauthn.verify('t1', user(), key.get(options))).toBe(true);
    expect(store.rows[0]?.counter).toBe(1);
    const again = (await webauthn.requestOptions(user(), 't2'))!;
    expect(await webauthn.verify('t2', user(), key.get(again, { counter: 1 }))).toBe(false);
    expect(await webauthn.verify('t2', user(), key.get(again, { counter: 5 }))).toBe(true);
    expect(await webauthn.verify('t3', user(), key.get(again))).toBe(false);
    expect(await webauthn.verify('t2', user({ id: '200' }), key.get(again))).toBe(false);
  });

  it('offers no options without credentials or MFA; passwordless tickets work once', async () => {
    const { webauthn } = setup();
    expect(await webauthn.requestOptions(user(), 't')).toBeNull();
    const key = new SoftAuthenticator();
    await registered(webauthn, key);
    expect(await webauthn.requestOptions(user({ mfa_enabled: false }), 't')).toBeNull();
    const start = await webauthn.startPasswordless(true);
    expect(JSON.parse(start.challenge)).toMatchObject({ mediation: 'conditional', publicKey: { allowCredentials: [] } });
    const credential = key.get(start.challenge);
    expect(await webauthn.finishPasswordless({ ticket: start.ticket, credential })).toBe('100');
    expect(await webauthn.finishPasswordless({ ticket: start.ticket, credential }).catch(codeOf)).toBe(60006);
  });
});
