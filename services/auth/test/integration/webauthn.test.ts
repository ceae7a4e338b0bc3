import type { Identity } from '@kith/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoftAuthenticator } from '../soft-authenticator.js';
import { AuthHarness, expectFormError } from './auth.harness.js';
import { codeAt, enrolledAccount, expectMfaRequired, finishMfa, type EnrolledAccount } from './mfa.fixtures.js';

let auth: AuthHarness;

beforeAll(async () => {
  auth = await AuthHarness.start();
});

afterAll(async () => {
  await auth?.close();
});

type Caller = Partial<Identity>;
const post = <T = unknown>(path: string, identity: Caller | undefined, body: unknown) =>
  auth.request<T>('POST', path, { ...(identity ? { identity } : {}), body });

interface Authenticator {
  id: string;
  type: number;
  name: string;
  last_used: string | null;
  cred_id: string;
}

/** A TOTP-enrolled user with one credential of `key` registered as `name`. */
async function withKey(
  key = new SoftAuthenticator(),
  name = 'YubiKey',
): Promise<EnrolledAccount & { key: SoftAuthenticator; authenticatorId: string }> {
  const account = await enrolledAccount(auth);
  const start = await post<{ ticket: string; challenge: string }>('/users/@me/mfa/webauthn/credentials', account.identity, {});
  expect(start.status, JSON.stringify(start.body)).toBe(200);
  const created = await post<{ id: string; type: number; name: string; backup_codes: unknown[] }>(
    '/users/@me/mfa/webauthn/credentials',
    account.identity,
    { ticket: start.body.ticket, credential: key.create(start.body.challenge), name },
  );
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return { ...account, key, authenticatorId: created.body.id };
}

/** Password login of an MFA user: the challenge answer. */
async function loginChallenge(account: EnrolledAccount) {
  const reply = await post<{ ticket: string; webauthn: string | null; login_instance_id: string }>('/auth/login', undefined, {
    login: account.email,
    password: account.password,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
}

describe('registration', () => {
  it('answers a ticket and creation options, then the authenticator; lists it; shows type 1 on the user', async () => {
    const account = await enrolledAccount(auth);
    const key = new SoftAuthenticator();
    const start = await post<{ ticket: string; challenge: string }>('/users/@me/mfa/webauthn/credentials', account.identity, {});
    expect(start.status).toBe(200);
    const options = JSON.parse(start.body.challenge) as { publicKey: { rp: { id: string }; attestation: string; user: { id: string } } };
    expect(options.publicKey.rp.id).toBe('localhost');
    expect(options.publicKey.attestation).toBe('none');
    const created = await post('/users/@me/mfa/webauthn/credentials', account.identity, {
      ticket: start.body.ticket,
      credential: key.create(start.body.challenge),
      name: 'AlienKey',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toEqual({ id: expect.stringMatching(/^\d+$/), type: 1, name: 'AlienKey', backup_codes: [] });
    const list = await auth.request<Authenticator[]>('GET', '/users/@me/mfa/webauthn/credentials', { identity: account.identity });
    expect(list.body).toEqual([{ id: (created.body as { id: string }).id, type: 1, name: 'AlienKey', last_used: null, cred_id: key.id }]);
    const me = await auth.request<{ mfa_enabled: boolean; authenticator_types: number[] }>('GET', '/users/@me', {
      identity: account.identity,
    });
    expect(me.body.mfa_enabled).toBe(true);
    expect(me.body.authenticator_types).toEqual([1, 2]);
  });

  it('needs TOTP first (60002), a live ticket of the same user (60006), and a valid credential', async () => {
    const plain = await auth.register();
    expect((await post<{ code: number }>('/users/@me/mfa/webauthn/credentials', plain.identity, {})).body.code).toBe(60002);

    const account = await enrolledAccount(auth);
    const other = await enrolledAccount(auth);
    const key = new SoftAuthenticator();
    const start = await post<{ ticket: string; challenge: string }>('/users/@me/mfa/webauthn/credentials', account.identity, {});
    const credential = key.create(start.body.challenge);
    // Another user's ticket is not this user's.
    expect(
      (await post<{ code: number }>('/users/@me/mfa/webauthn/credentials', other.identity, { ticket: start.body.ticket, credential })).body
        .code,
    ).toBe(60006);
    // The ticket went with that attempt: single use.
    expect(
      (await post<{ code: number }>('/users/@me/mfa/webauthn/credentials', account.identity, { ticket: start.body.ticket, credential }))
        .body.code,
    ).toBe(60006);

    const again = await post<{ ticket: string; challenge: string }>('/users/@me/mfa/webauthn/credentials', account.identity, {});
    for (const ceremony of [{ origin: 'https://evil.example' }, { rpId: 'evil.example' }, { challenge: 'AAAA' }]) {
      const next = await post<{ ticket: string; challenge: string }>('/users/@me/mfa/webauthn/credentials', account.identity, {});
      const reply = await post<{ code: number }>('/users/@me/mfa/webauthn/credentials', account.identity, {
        ticket: next.body.ticket,
        credential: new SoftAuthenticator().create(next.body.challenge, ceremony),
      });
      expect(reply.status).toBe(400);
      expect(reply.body.code, JSON.stringify(ceremony)).toBe(60008);
    }
    // Not JSON, or missing halves: form errors.
    expectFormError(
      await post('/users/@me/mfa/webauthn/credentials', account.identity, { ticket: again.body.ticket, credential: 'nope' }),
      {
        credential: 'BASE_TYPE_INVALID',
      },
    );
    expectFormError(await post('/users/@me/mfa/webauthn/credentials', account.identity, { ticket: again.body.ticket }), {
      credential: 'BASE_TYPE_REQUIRED',
    });
    expectFormError(await post('/users/@me/mfa/webauthn/credentials', account.identity, { credential: '{}' }), {
      ticket: 'BASE_TYPE_REQUIRED',
    });
    expect(
      (await post('/users/@me/mfa/webauthn/credentials', account.identity, { name: 'x'.repeat(33), ticket: 't', credential: '{}' })).status,
    ).toBe(400);
  });

  it('answers 401 without a user', async () => {
    expect((await auth.request('GET', '/users/@me/mfa/webauthn/credentials')).status).toBe(401);
    expect((await post('/users/@me/mfa/webauthn/credentials', undefined, {})).status).toBe(401);
    const account = await auth.register();
    for (const path of ['/users/@me/mfa/webauthn/credentials', '/auth/conditional/finish', '/auth/mfa/webauthn']) {
      const reply = await auth.request<{ code: number }>('POST', path, { identity: account.identity, rawBody: '{"ticket":' });
      expect(reply.body.code, path).toBe(50109);
    }
  });
});

describe('rename and delete', () => {
  it('renames (404 for another user’s), deletes with elevation only, and the type leaves the user', async () => {
    const account = await withKey();
    const other = await enrolledAccount(auth);
    const path = `/users/@me/mfa/webauthn/credentials/${account.authenticatorId}`;
    const renamed = await auth.request<Authenticator>('PATCH', path, { identity: account.identity, body: { name: 'Backup key' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: account.authenticatorId, type: 1, name: 'Backup key', cred_id: account.key.id });
    expect((await auth.request('PATCH', path, { identity: other.identity, body: { name: 'mine' } })).status).toBe(404);
    expectFormError(await auth.request('PATCH', path, { identity: account.identity, body: { name: '' } }), {
      name: 'BASE_TYPE_MIN_LENGTH',
    });

    const required = expectMfaRequired(await auth.request('DELETE', path, { identity: account.identity }), [
      { type: 'webauthn', challenge: expect.any(String) } as never,
      { type: 'totp', backup_codes_allowed: true },
    ]);
    const { token } = await finishMfa(auth, account.identity, required, 'totp', codeAt(account.secret, 1));
    const removed = await auth.request('DELETE', path, { identity: account.identity, headers: { 'x-discord-mfa-authorization': token } });
    expect(removed.status).toBe(204);
    expect(
      (await auth.request('DELETE', path, { identity: account.identity, headers: { 'x-discord-mfa-authorization': token } })).status,
    ).toBe(404);
    const me = await auth.request<{ authenticator_types: number[] }>('GET', '/users/@me', { identity: account.identity });
    expect(me.body.authenticator_types).toEqual([2]);
  });
});

describe('with TOTP', () => {
  it('disabling TOTP removes the credentials: no passwordless login afterwards', async () => {
    const account = await withKey();
    const required = expectMfaRequired(await post('/users/@me/mfa/totp/disable', account.identity, {}), [
      { type: 'webauthn', challenge: expect.any(String) } as never,
      { type: 'totp', backup_codes_allowed: true },
    ]);
    const { token } = await finishMfa(auth, account.identity, required, 'totp', codeAt(account.secret, 1));
    const disabled = await auth.request('POST', '/users/@me/mfa/totp/disable', {
      identity: account.identity,
      headers: { 'x-discord-mfa-authorization': token },
    });
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
    const list = await auth.request('GET', '/users/@me/mfa/webauthn/credentials', { identity: account.identity });
    expect(list.body).toEqual([]);
    const start = await post<{ ticket: string; challenge: string }>('/auth/conditional/start', undefined, {});
    const reply = await post<{ code: number }>('/auth/conditional/finish', undefined, {
      ticket: start.body.ticket,
      credential: account.key.get(start.body.challenge),
    });
    expect(reply.body.code).toBe(60008);
  });
});

describe('login with webauthn', () => {
  it('offers request options for the credential and accepts its assertion once', async () => {
    const account = await withKey();
    const challenge = await loginChallenge(account);
    const options = JSON.parse(challenge.webauthn!) as { publicKey: { rpId: string; allowCredentials: { id: string }[] } };
    expect(options.publicKey.rpId).toBe('localhost');
    expect(options.publicKey.allowCredentials.map((c) => c.id)).toEqual([account.key.id]);
    const code = account.key.get(challenge.webauthn!);
    const reply = await post<{ token: string }>('/auth/mfa/webauthn', undefined, { ticket: challenge.ticket, code });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect((await auth.identityOf(reply.body.token)).userId).toBe(account.userId);
    // Replayed: the ticket is spent.
    expect((await post<{ code: number }>('/auth/mfa/webauthn', undefined, { ticket: challenge.ticket, code })).body.code).toBe(60006);
    // Replayed against a new ticket: the challenge differs.
    const next = await loginChallenge(account);
    expect((await post<{ code: number }>('/auth/mfa/webauthn', undefined, { ticket: next.ticket, code })).body.code).toBe(60008);
    const list = await auth.request<Authenticator[]>('GET', '/users/@me/mfa/webauthn/credentials', { identity: account.identity });
    expect(list.body[0]?.last_used).toEqual(expect.any(String));
  });

  it('refuses a wrong origin, rpId, challenge, another key, a cloned key’s counter, and non-JSON (60008)', async () => {
    const account = await withKey();
    const cases: [string, (options: string) => string][] = [
      ['origin', (o) => account.key.get(o, { origin: 'https://evil.example' })],
      ['rpId', (o) => account.key.get(o, { rpId: 'evil.example' })],
      ['challenge', (o) => account.key.get(o, { challenge: 'AAAAAAAAAAAAAAAAAAAAAA' })],
      ['stranger', (o) => new SoftAuthenticator().get(o)],
      ['garbage', () => 'not json'],
    ];
    for (const [name, assertion] of cases) {
      const challenge = await loginChallenge(account);
      const reply = await post<{ code: number }>('/auth/mfa/webauthn', undefined, {
        ticket: challenge.ticket,
        code: assertion(challenge.webauthn!),
      });
      expect(reply.status, name).toBe(400);
      expect(reply.body.code, name).toBe(60008);
    }
    // The counter check: after a good use at n, a clone signing n again is refused.
    const first = await loginChallenge(account);
    expect((await post('/auth/mfa/webauthn', undefined, { ticket: first.ticket, code: account.key.get(first.webauthn!) })).status).toBe(
      200,
    );
    const cloned = await loginChallenge(account);
    const same = account.key.counter;
    const reply = await post<{ code: number }>('/auth/mfa/webauthn', undefined, {
      ticket: cloned.ticket,
      code: account.key.get(cloned.webauthn!, { counter: same }),
    });
    expect(reply.body.code).toBe(60008);
  });

  it('is not offered to users without a credential; bad bodies are 50035', async () => {
    const account = await enrolledAccount(auth);
    expect((await loginChallenge(account)).webauthn).toBeNull();
    expect((await post('/auth/mfa/webauthn', undefined, { ticket: 'x' })).status).toBe(400);
    expect((await post<{ code: number }>('/auth/mfa/webauthn', undefined, { ticket: 1, code: 2 })).body.code).toBe(50035);
  });
});

describe('elevation with webauthn', () => {
  it('offers the challenge in the 60003 body and /mfa/finish accepts the assertion', async () => {
    const account = await withKey();
    const path = `/users/@me/mfa/webauthn/credentials/${account.authenticatorId}`;
    const required = expectMfaRequired(await auth.request('DELETE', path, { identity: account.identity }), [
      { type: 'webauthn', challenge: expect.any(String) } as never,
      { type: 'totp', backup_codes_allowed: true },
    ]);
    const challenge = (required.mfa.methods[0] as unknown as { challenge: string }).challenge;
    const wrong = await post<{ code: number }>('/mfa/finish', account.identity, {
      ticket: required.mfa.ticket,
      mfa_type: 'webauthn',
      data: account.key.get(challenge, { origin: 'https://evil.example' }),
    });
    expect(wrong.body.code).toBe(60008);
    const { token, cookie } = await finishMfa(auth, account.identity, required, 'webauthn', account.key.get(challenge));
    expect(cookie).toContain('__Secure-recent_mfa=');
    expect(
      (await auth.request('DELETE', path, { identity: account.identity, headers: { 'x-service-mfa-authorization': token } })).status,
    ).toBe(204);
  });
});

describe('passwordless', () => {
  it('starts without allowCredentials and logs in with a discoverable credential', async () => {
    const account = await withKey();
    for (const flow of ['conditional', 'passwordless']) {
      const start = await post<{ ticket: string; challenge: string }>(`/auth/${flow}/start`, undefined, {});
      expect(start.status).toBe(200);
      const options = JSON.parse(start.body.challenge) as {
        publicKey: { allowCredentials: unknown[]; userVerification: string };
        mediation?: string;
      };
      expect(options.publicKey.allowCredentials).toEqual([]);
      expect(options.publicKey.userVerification).toBe('required');
      expect(options.mediation).toBe(flow === 'conditional' ? 'conditional' : undefined);
      const credential = account.key.get(start.body.challenge);
      const reply = await post<{ user_id: string; token: string; user_settings: unknown }>('/auth/conditional/finish', undefined, {
        ticket: start.body.ticket,
        credential,
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body).toEqual({ user_id: account.userId, token: expect.any(String), user_settings: { locale: 'en-US', theme: 'dark' } });
      expect((await auth.identityOf(reply.body.token)).userId).toBe(account.userId);
      // Single use.
      expect(
        (await post<{ code: number }>('/auth/conditional/finish', undefined, { ticket: start.body.ticket, credential })).body.code,
      ).toBe(60006);
    }
  });

  it('refuses unknown credentials, a wrong user handle, origin or challenge (60008), bad tickets (60006), bad bodies (50035)', async () => {
    const account = await withKey();
    const cases: [string, (o: string) => string][] = [
      ['stranger', (o) => new SoftAuthenticator().get(o)],
      ['origin', (o) => account.key.get(o, { origin: 'https://evil.example' })],
      ['challenge', (o) => account.key.get(o, { challenge: 'AAAAAAAAAAAAAAAAAAAAAA' })],
      [
        'handle',
        (o) => {
          const saved = account.key.userHandle;
          account.key.userHandle = Buffer.from('1').toString('base64url');
          const assertion = account.key.get(o);
          account.key.userHandle = saved;
          return assertion;
        },
      ],
    ];
    for (const [name, assertion] of cases) {
      const start = await post<{ ticket: string; challenge: string }>('/auth/conditional/start', undefined, {});
      const reply = await post<{ code: number }>('/auth/conditional/finish', undefined, {
        ticket: start.body.ticket,
        credential: assertion(start.body.challenge),
      });
      expect(reply.body.code, name).toBe(60008);
    }
    expect((await post<{ code: number }>('/auth/conditional/finish', undefined, { ticket: 'unknown', credential: '{}' })).body.code).toBe(
      60006,
    );
    expectFormError(await post('/auth/conditional/finish', undefined, { ticket: 'unknown', credential: 'nope' }), {
      credential: 'BASE_TYPE_INVALID',
    });
    expect((await post<{ code: number }>('/auth/conditional/finish', undefined, { ticket: 'x' })).body.code).toBe(50035);
  });
});
