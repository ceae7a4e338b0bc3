import { countPending, createDatabase, sql } from '@kith/platform';
import { unique } from '@kith/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthHarness } from './auth.harness.js';

// A database of this file's own: the test makes the outbox refuse writes, which must not reach
// any other file's auth.
let auth: AuthHarness;

beforeAll(async () => {
  auth = await AuthHarness.start({ DB_PREFIX: unique('kith_t') });
  // Every new outbox row now violates a constraint, as a full disk or a bad event would fail it.
  await sql`ALTER TABLE outbox ADD CONSTRAINT refuse_events CHECK (false) NOT VALID`.execute(auth.db);
});

afterAll(async () => {
  await auth?.close();
  const admin = createDatabase({ url: auth.stores.DATABASE_URL, maxConnections: 1 });
  await sql.raw(`DROP DATABASE IF EXISTS "${auth.databaseName}" WITH (FORCE)`).execute(admin);
  await admin.destroy();
});

describe('session revocation and its event', () => {
  it('when the event cannot be written, then the logout fails whole: the session stays live and nothing is pending', async () => {
    const account = await auth.register();
    const reply = await auth.request('POST', '/auth/logout', { identity: account.identity });
    expect(reply.status).toBe(500);
    expect(reply.body).toEqual({ code: 0, message: '500: Internal Server Error' });
    expect(reply.headers.get('x-internal-revoked-sessions')).toBeNull();

    expect((await auth.grpc.validateToken({ token: account.token })).valid).toBe(true);
    const session = await auth.db.selectFrom('sessions').select('revoked_at').where('id', '=', account.sessionId).executeTakeFirstOrThrow();
    expect(session.revoked_at).toBeNull();
    expect(await countPending(auth.db)).toBe(0);
  });

  it('when logging out by hash cannot write its events, then none of the sessions is revoked', async () => {
    const account = await auth.register();
    const sessions = await auth.sessions(account.identity);
    const reply = await auth.request('POST', '/auth/sessions/logout', {
      identity: account.identity,
      body: { session_id_hashes: sessions.map((s) => s.id_hash) },
    });
    expect(reply.status).toBe(500);
    expect((await auth.sessions(account.identity)).map((s) => s.id_hash)).toEqual(sessions.map((s) => s.id_hash));
  });
});

describe('user changes and USER_UPDATE', () => {
  it('when USER_UPDATE cannot be written, then the change fails whole: the user is as it was and nothing is pending', async () => {
    const account = await auth.register();
    const reply = await auth.request('PATCH', '/users/@me', { identity: account.identity, body: { global_name: 'Never' } });
    expect(reply.status).toBe(500);
    expect(reply.body).toEqual({ code: 0, message: '500: Internal Server Error' });
    const me = await auth.request<{ global_name: string | null }>('GET', '/users/@me', { identity: account.identity });
    expect(me.body.global_name).toBeNull();
    expect(await countPending(auth.db)).toBe(0);
  });
});
