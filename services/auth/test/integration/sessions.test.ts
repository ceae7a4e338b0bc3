import { connectNats, eventSubject, type NatsConnection } from '@kith/platform';
import { readStoredEvents } from '@kith/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionIdHash } from '../../src/domain/tokens.js';
import type { AuthSessionChange } from '../../src/events/session.events.js';
import { AuthHarness, expectFormError, type Account } from './auth.harness.js';

let auth: AuthHarness;
let nats: NatsConnection;
/** Events stored before this file started are not this file's. */
let since: Date;

beforeAll(async () => {
  since = new Date(Date.now() - 1_000);
  auth = await AuthHarness.start();
  nats = await connectNats(auth.stores.NATS_URL, 'auth-sessions-test');
});

afterAll(async () => {
  await nats?.drain();
  await auth?.close();
});

const FIREFOX_ON_LINUX = Buffer.from(JSON.stringify({ os: 'Linux', browser: 'Firefox' })).toString('base64');

const logoutByHashes = (account: Account, hashes: unknown) =>
  auth.request('POST', '/auth/sessions/logout', { identity: account.identity, body: { session_id_hashes: hashes } });

const SESSION_CHANGES = eventSubject('auth', 'AUTH_SESSION_CHANGE');

/** The AUTH_SESSION_CHANGE events the EVENTS stream holds for one user, as stored. */
async function sessionChanges(userId: string) {
  const stored = await readStoredEvents<AuthSessionChange>(nats, SESSION_CHANGES, since);
  return stored.filter((e) => e.envelope.audience.users?.includes(userId));
}

/** What the stream must hold when a session of this user ends: its hash for clients, its id internally. */
const sessionChange = (userId: string, sessionId: string) =>
  expect.objectContaining({
    subject: SESSION_CHANGES,
    msgId: expect.stringMatching(/^\d+$/),
    envelope: {
      id: expect.stringMatching(/^\d+$/),
      service: 'auth',
      name: 'AUTH_SESSION_CHANGE',
      occurred_at: expect.any(String),
      audience: { users: [userId] },
      data: { auth_session_id_hash: sessionIdHash(sessionId) },
      internal: { revoked_session_ids: [sessionId] },
    },
  });

/** The hash of the session a token opened, found by listing before and after. */
async function loginWithHash(account: Account, headers: Record<string, string> = {}) {
  const before = new Set((await auth.sessions(account.identity)).map((s) => s.id_hash));
  const session = await auth.login(account.email, account.password, { headers });
  const added = (await auth.sessions(account.identity)).filter((s) => !before.has(s.id_hash));
  expect(added).toHaveLength(1);
  return { ...session, view: added[0]! };
}

describe('GET /auth/sessions', () => {
  it('when a user has sessions, then each shows its id hash, an ISO last-used time and client info', async () => {
    // Bracketed by the test's own clock around the calls (a second's leeway: the database stamps it with its own clock).
    const before = Date.now() - 1000;
    const account = await auth.register();
    const sessions = await auth.sessions(account.identity);
    const after = Date.now() + 1000;
    expect(sessions).toEqual([
      {
        id_hash: expect.stringMatching(/^[A-Za-z0-9+/]{43}=$/),
        approx_last_used_time: expect.any(String),
        client_info: { os: null, platform: null, location: null },
      },
    ]);
    const lastUsed = sessions[0]!.approx_last_used_time;
    expect(new Date(lastUsed).toISOString()).toBe(lastUsed);
    // Used by the registration that opened it, between the two readings.
    expect(Date.parse(lastUsed)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(lastUsed)).toBeLessThanOrEqual(after);
  });

  it('when the client sent X-Super-Properties at login, then its os and browser are shown', async () => {
    const account = await auth.register();
    const { view } = await loginWithHash(account, { 'x-super-properties': FIREFOX_ON_LINUX });
    expect(view.client_info).toEqual({ os: 'Linux', platform: 'Firefox', location: null });
  });

  it('when the client sent only a User-Agent, then os and platform come from it', async () => {
    const account = await auth.register();
    const { view } = await loginWithHash(account, {
      'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
    });
    expect(view.client_info).toMatchObject({ os: 'Windows', platform: 'Chrome' });
  });

  it('when the session was opened from a public address, then its country is shown', async () => {
    const account = await auth.register({}, { identity: { clientIp: '8.8.8.8' } });
    const [session] = await auth.sessions(account.identity);
    expect(session!.client_info.location).toBe('United States');
  });

  it('when a user has more than 50 sessions, then 50 are listed', async () => {
    const account = await auth.register();
    await Promise.all(Array.from({ length: 51 }, () => auth.login(account.email, account.password)));
    const sessions = await auth.sessions(account.identity);
    expect(sessions).toHaveLength(50);
    expect(new Set(sessions.map((s) => s.id_hash)).size).toBe(50);
    const times = sessions.map((s) => Date.parse(s.approx_last_used_time));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('when the caller is anonymous, then 401', async () => {
    const reply = await auth.request('GET', '/auth/sessions');
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ code: 0, message: '401: Unauthorized' });
  });
});

describe('POST /auth/sessions/logout', () => {
  it('when no hash or 65 hashes are given, then 50035 on session_id_hashes', async () => {
    const account = await auth.register();
    expectFormError(await logoutByHashes(account, []), { session_id_hashes: 'BASE_TYPE_MIN_LENGTH' });
    expectFormError(
      await logoutByHashes(
        account,
        Array.from({ length: 65 }, (_, i) => `hash${i}`),
      ),
      {
        session_id_hashes: 'BASE_TYPE_MAX_LENGTH',
      },
    );
    expectFormError(await auth.request('POST', '/auth/sessions/logout', { identity: account.identity, body: {} }), {
      session_id_hashes: 'BASE_TYPE_REQUIRED',
    });
  });

  it('when 64 hashes are given, then they are accepted', async () => {
    const account = await auth.register();
    const reply = await logoutByHashes(
      account,
      Array.from({ length: 64 }, (_, i) => `no-such-hash-${i}`),
    );
    expect(reply.status).toBe(204);
    expect((await auth.grpc.validateToken({ token: account.token })).valid).toBe(true);
  });

  it('when one of my session hashes is given, then 204, that token stops validating and the others keep working', async () => {
    const account = await auth.register();
    const other = await loginWithHash(account);
    const reply = await logoutByHashes(account, [other.view.id_hash]);
    expect(reply.status).toBe(204);
    expect(reply.body).toBe('');

    expect(await auth.grpc.validateToken({ token: other.token })).toMatchObject({ valid: false, userId: '', sessionId: '' });
    expect((await auth.grpc.validateToken({ token: account.token })).valid).toBe(true);
    expect((await auth.sessions(account.identity)).map((s) => s.id_hash)).not.toContain(other.view.id_hash);
  });

  it('when a session is revoked, then one AUTH_SESSION_CHANGE reaches events.auth.AUTH_SESSION_CHANGE for its user', async () => {
    const account = await auth.register();
    const other = await loginWithHash(account);
    expect((await logoutByHashes(account, [other.view.id_hash, other.view.id_hash])).status).toBe(204);
    await expect.poll(() => sessionChanges(account.userId)).toEqual([sessionChange(account.userId, other.identity.sessionId!)]);
    const [stored] = await sessionChanges(account.userId);
    expect(stored!.msgId).toBe(stored!.envelope.id);
    expect(stored!.envelope.data.auth_session_id_hash).toBe(other.view.id_hash);
  });

  it('when several sessions are revoked at once, then each gets its own AUTH_SESSION_CHANGE', async () => {
    const account = await auth.register();
    const second = await loginWithHash(account);
    const third = await loginWithHash(account);
    expect((await logoutByHashes(account, [second.view.id_hash, third.view.id_hash])).status).toBe(204);
    await expect
      .poll(async () => (await sessionChanges(account.userId)).map((e) => e.envelope.internal?.revoked_session_ids).sort())
      .toEqual([[second.identity.sessionId], [third.identity.sessionId]].sort());
  });

  it('when no hash is one of mine, then nothing is revoked and no event is written', async () => {
    const victim = await auth.register();
    const attacker = await auth.register();
    const [victimSession] = await auth.sessions(victim.identity);
    expect((await logoutByHashes(attacker, [victimSession!.id_hash, 'no-such-hash'])).status).toBe(204);
    // Events leave in commit order: once this later one is out, an earlier one would be too.
    expect((await auth.request('POST', '/auth/logout', { identity: attacker.identity })).status).toBe(204);
    await expect.poll(() => sessionChanges(attacker.userId)).toEqual([sessionChange(attacker.userId, attacker.sessionId)]);
    expect(await sessionChanges(victim.userId)).toEqual([]);
  });

  it('when sessions are revoked, then the answer names them for the edge in x-internal-revoked-sessions', async () => {
    const account = await auth.register();
    const other = await loginWithHash(account);
    const reply = await logoutByHashes(account, [other.view.id_hash]);
    expect(reply.headers.get('x-internal-revoked-sessions')).toBe(other.identity.sessionId);
    const again = await logoutByHashes(account, [other.view.id_hash]);
    expect(again.status).toBe(204);
    expect(again.headers.get('x-internal-revoked-sessions')).toBeNull();
    const own = await auth.request('POST', '/auth/logout', { identity: account.identity, body: {} });
    expect(own.headers.get('x-internal-revoked-sessions')).toBe(account.identity.sessionId);
  });

  it("when another user's session hash is given, then 204 but their session stays valid", async () => {
    const victim = await auth.register();
    const [victimSession] = await auth.sessions(victim.identity);
    const attacker = await auth.register();

    const reply = await logoutByHashes(attacker, [victimSession!.id_hash]);
    expect(reply.status).toBe(204);
    expect(await auth.grpc.validateToken({ token: victim.token })).toMatchObject({ valid: true, userId: victim.userId });
    expect((await auth.sessions(victim.identity)).map((s) => s.id_hash)).toEqual([victimSession!.id_hash]);
    expect((await auth.grpc.validateToken({ token: attacker.token })).valid).toBe(true);
  });
});

describe('POST /auth/logout', () => {
  it("when a user logs out, then 204 and only the caller's own session is revoked, with an event", async () => {
    const account = await auth.register();
    const other = await auth.login(account.email, account.password);
    const reply = await auth.request('POST', '/auth/logout', { identity: account.identity, body: { provider: null, voip_provider: null } });
    expect(reply.status).toBe(204);

    expect((await auth.grpc.validateToken({ token: account.token })).valid).toBe(false);
    expect((await auth.grpc.validateToken({ token: other.token })).valid).toBe(true);
    await expect.poll(() => sessionChanges(account.userId)).toEqual([sessionChange(account.userId, account.sessionId)]);
  });

  it('when the body is absent, then logout still succeeds', async () => {
    const account = await auth.register();
    expect((await auth.request('POST', '/auth/logout', { identity: account.identity })).status).toBe(204);
    expect((await auth.grpc.validateToken({ token: account.token })).valid).toBe(false);
  });

  it('when the caller is anonymous or has no session, then 401', async () => {
    const account = await auth.register();
    for (const identity of [{}, { userId: account.userId }]) {
      const reply = await auth.request('POST', '/auth/logout', { identity });
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual({ code: 0, message: '401: Unauthorized' });
    }
    expect((await auth.grpc.validateToken({ token: account.token })).valid).toBe(true);
  });
});
