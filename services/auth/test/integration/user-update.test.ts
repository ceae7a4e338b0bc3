import { randomInt } from 'node:crypto';
import { connectNats, eventSubject, type NatsConnection } from '@kith/platform';
import { readStoredEvents } from '@kith/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserUpdate } from '../../src/events/user.events.js';
import { AuthHarness, type Account } from './auth.harness.js';
import { newPhone, TwilioPeer } from './delivery.peers.js';
import { codeAt, enrolledAccount, expectMfaRequired, finishMfa, proofForms } from './mfa.fixtures.js';

let auth: AuthHarness;
let twilio: TwilioPeer;
let nats: NatsConnection;
/** Events stored before this file started are not this file's. */
let since: Date;

beforeAll(async () => {
  since = new Date(Date.now() - 1_000);
  twilio = await TwilioPeer.start();
  auth = await AuthHarness.start(twilio.env());
  nats = await connectNats(auth.stores.NATS_URL, 'auth-user-update-test');
});

afterAll(async () => {
  await nats?.drain();
  await auth?.close();
  await twilio?.close();
});

const USER_UPDATES = eventSubject('auth', 'USER_UPDATE');
const newIp = () => `10.${randomInt(0, 256)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;

/** The USER_UPDATE events the EVENTS stream holds for one user, oldest first. */
async function userUpdates(userId: string) {
  const stored = await readStoredEvents<UserUpdate>(nats, USER_UPDATES, since);
  return stored.filter((e) => e.envelope.audience.users?.includes(userId)).map((e) => e.envelope);
}

/** Waits until the user has `count` USER_UPDATE events; the last one's data. */
async function latestUpdate(userId: string, count: number): Promise<UserUpdate> {
  await expect.poll(async () => (await userUpdates(userId)).length).toBe(count);
  return (await userUpdates(userId)).at(-1)!.data;
}

const me = async (account: Pick<Account, 'identity'>) =>
  (await auth.request<Record<string, unknown>>('GET', '/users/@me', { identity: account.identity })).body;

describe('USER_UPDATE', () => {
  it('when PATCH /users/@me changes the user, then one USER_UPDATE to the user carries the user as /users/@me renders it', async () => {
    const account = await auth.register();
    const reply = await auth.request('PATCH', '/users/@me', { identity: account.identity, body: { global_name: 'Renamed' } });
    expect(reply.status).toBe(200);
    const [event] = await (async () => {
      await expect.poll(async () => (await userUpdates(account.userId)).length).toBe(1);
      return userUpdates(account.userId);
    })();
    expect(event).toMatchObject({ service: 'auth', name: 'USER_UPDATE', audience: { users: [account.userId] } });
    expect(event!.data).toEqual(await me(account));
    expect(event!.data.global_name).toBe('Renamed');
  });

  it('when TOTP is enabled and disabled, then each publishes the user with its MFA state', async () => {
    const account = await enrolledAccount(auth);
    expect(await latestUpdate(account.userId, 1)).toMatchObject({ mfa_enabled: true, authenticator_types: [2] });
    const required = expectMfaRequired(
      await auth.request('POST', '/users/@me/mfa/totp/disable', { identity: account.identity, body: {} }),
      [{ type: 'totp', backup_codes_allowed: true }],
    );
    const { token: jwt } = await finishMfa(auth, account.identity, required, 'totp', codeAt(account.secret, 1));
    const disabled = await auth.request('POST', '/users/@me/mfa/totp/disable', {
      identity: account.identity,
      body: {},
      headers: proofForms(jwt)['X-Discord-MFA-Authorization']!,
    });
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
    const data = await latestUpdate(account.userId, 2);
    expect(data).toMatchObject({ mfa_enabled: false, authenticator_types: [] });
  });

  it('when a phone is added and removed, then each publishes the user with its phone', async () => {
    const account = await auth.register();
    const phone = newPhone();
    expect(
      (await auth.request('POST', '/users/@me/phone', { identity: { ...account.identity, clientIp: newIp() }, body: { phone } })).status,
    ).toBe(204);
    const verified = await auth.request<{ token: string }>('POST', '/phone-verifications/verify', {
      body: { phone, code: await twilio.codeSentTo(phone) },
    });
    const added = await auth.request('POST', '/users/@me/phone', {
      identity: account.identity,
      body: { phone_token: verified.body.token, password: account.password },
    });
    expect(added.status).toBe(204);
    expect((await latestUpdate(account.userId, 1)).phone).toBe(phone);
    const removed = await auth.request('DELETE', '/users/@me/phone', { identity: account.identity, body: { password: account.password } });
    expect(removed.status).toBe(204);
    expect((await latestUpdate(account.userId, 2)).phone).toBeNull();
  });

  it('when the settings change the locale, then USER_UPDATE carries it; a theme change alone does not announce the user', async () => {
    const account = await auth.register();
    const theme = await auth.request('PATCH', '/users/@me/settings', { identity: account.identity, body: { theme: 'light' } });
    expect(theme.status).toBe(200);
    const locale = await auth.request('PATCH', '/users/@me/settings', { identity: account.identity, body: { locale: 'fr' } });
    expect(locale.status).toBe(200);
    const data = await latestUpdate(account.userId, 1);
    expect(data.locale).toBe('fr');
    expect(data).toEqual(await me(account));
  });

  it('when the settings are patched with nothing they keep (an empty body, null, unknown fields), then 200 with the settings as they were, nothing announced', async () => {
    const account = await auth.register();
    const before = await auth.request('GET', '/users/@me/settings', { identity: account.identity });
    for (const body of [{}, null, { unknown: 1 }]) {
      const res = await auth.request('PATCH', '/users/@me/settings', { identity: account.identity, body });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(before.body);
    }
    const locale = await auth.request('PATCH', '/users/@me/settings', { identity: account.identity, body: { locale: 'de' } });
    expect(locale.status).toBe(200);
    // The first USER_UPDATE of this user is the locale change: the empty patches announced nothing.
    expect((await latestUpdate(account.userId, 1)).locale).toBe('de');
  });

  it('when a change is refused (wrong password, taken username) or changes nothing, then no USER_UPDATE', async () => {
    const account = await auth.register();
    const other = await auth.register();
    const wrong = await auth.request('PATCH', '/users/@me', {
      identity: account.identity,
      body: { username: 'someone_else', password: 'wrong password' },
    });
    expect(wrong.status).toBe(400);
    const taken = await auth.request('PATCH', '/users/@me', {
      identity: account.identity,
      body: { username: other.username, password: account.password },
    });
    expect(taken.status).toBe(400);
    expect((await auth.request('PATCH', '/users/@me', { identity: account.identity, body: {} })).status).toBe(200);
    // A later real change proves the stream was read past the refused ones.
    expect((await auth.request('PATCH', '/users/@me', { identity: account.identity, body: { global_name: 'Later' } })).status).toBe(200);
    const data = await latestUpdate(account.userId, 1);
    expect(data.global_name).toBe('Later');
    expect(data.username).toBe(account.username);
  });
});
