import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { testKeys, testDbPrefix } from '@kith/platform/testing';
import { startAuth, type RunningAuth } from '../../../auth/src/app.js';
import { authConfigSchema } from '../../../auth/src/config.js';
import { call, closedPort, registerUser, startTestGateway, stopAll, type TestUser } from '../../../../gateway/test/integration/harness.js';
import type { RunningGateway } from '../../../../gateway/src/app.js';
import { startSocial, type RunningSocial } from '../../src/app.js';
import { socialConfigSchema } from '../../src/config.js';
import { USER_UPDATE_SUBJECT } from '../../src/events/user-updates.js';

/**
 * Two social replicas on one database, each behind its own edge, with real auth, PostgreSQL and
 * NATS: a list one replica has cached must never outlive a change made through the other.
 */

// Databases of their own, so other suites' migrations never meet these.
const DB_PREFIX = testDbPrefix('socialit');

let auth: RunningAuth;
const replicas: RunningSocial[] = [];
const edges: (RunningGateway & { base: string })[] = [];
let nats: NatsConnection;

interface Member extends TestUser {
  id: string;
}

async function member(): Promise<Member> {
  const user = await registerUser(edges[0]!.base);
  const me = await call<{ id: string }>(edges[0]!.base, '/api/v9/users/@me', { token: user.token });
  expect(me.status).toBe(200);
  return { ...user, id: me.body.id };
}

/** `who`'s list through replica `n`, as `<id> <type>[ nick]` rows. */
async function listOn(n: number, who: Member): Promise<string[]> {
  const res = await call<{ id: string; type: number; nickname: string | null }[]>(edges[n]!.base, '/api/v9/users/@me/relationships', {
    token: who.token,
  });
  expect(res.status).toBe(200);
  return res.body.map((r) => `${r.id} ${r.type}${r.nickname ? ` ${r.nickname}` : ''}`).sort();
}

async function change(n: number, who: Member, method: 'PUT' | 'PATCH' | 'DELETE', path: string, json: unknown = {}): Promise<void> {
  const res = await call(edges[n]!.base, `/api/v9/users/@me/relationships${path}`, { token: who.token, method, json });
  expect(res.status).toBe(204);
}

/** Both replicas have both lists cached. */
async function warm(...who: Member[]): Promise<void> {
  for (const n of [0, 1]) for (const w of who) await listOn(n, w);
}

beforeAll(async () => {
  const stores = inject('stores');
  const keys = testKeys();
  const base = { ...stores, HTTP_PORT: '0', GRPC_PORT: '0', DB_PREFIX, LOG_LEVEL: 'silent', INTERNAL_TOKEN_PUBLIC_KEY: keys.publicKey };
  auth = await startAuth(authConfigSchema.parse(base));
  const authAddr = `127.0.0.1:${auth.grpcPort}`;
  // Guilds is down for these replicas: nothing listens where they look for it.
  const guildsAddr = `127.0.0.1:${await closedPort()}`;
  for (let i = 0; i < 2; i++)
    replicas.push(await startSocial(socialConfigSchema.parse({ ...base, AUTH_GRPC_ADDR: authAddr, GUILDS_GRPC_ADDR: guildsAddr })));
  for (const social of replicas)
    edges.push(
      await startTestGateway({ stores, keys, auth, dbPrefix: DB_PREFIX }, { SOCIAL_HTTP_URL: `http://127.0.0.1:${social.httpPort}` }),
    );
  nats = await connect({ servers: stores.NATS_URL });
});

afterAll(async () => {
  await nats?.close();
  await stopAll(...edges.map((e) => e.closers), ...replicas.map((r) => r.closers), auth?.closers);
});

describe('a list cached by one replica after a change through the other', () => {
  it('shows every step of a friendship on both sides, whichever replica answers', async () => {
    const [a, b] = await Promise.all([member(), member()]);
    await warm(a, b);

    await change(0, a, 'PUT', `/${b.id}`);
    expect(await listOn(1, a)).toEqual([`${b.id} 4`]);
    expect(await listOn(1, b)).toEqual([`${a.id} 3`]);

    await warm(a, b);
    await change(1, b, 'PUT', `/${a.id}`, { confirm_stranger_request: true });
    expect(await listOn(0, a)).toEqual([`${b.id} 1`]);
    expect(await listOn(0, b)).toEqual([`${a.id} 1`]);

    await warm(a, b);
    await change(0, a, 'PATCH', `/${b.id}`, { nickname: 'pal' });
    expect(await listOn(1, a)).toEqual([`${b.id} 1 pal`]);

    await warm(a, b);
    await change(1, b, 'PUT', `/${a.id}`, { type: 2 });
    expect(await listOn(0, a)).toEqual([]);
    expect(await listOn(0, b)).toEqual([`${a.id} 2`]);
  });

  it('requests arriving at both replicas at once all show on both, once answered', async () => {
    const target = await member();
    const senders = await Promise.all(Array.from({ length: 8 }, () => member()));
    await warm(target);
    await Promise.all(
      senders.map(async (s, i) => {
        await change(i % 2, s, 'PUT', `/${target.id}`);
        // Whatever the other replica kept before this answer, it must not answer it now.
        expect(await listOn((i + 1) % 2, target)).toContain(`${s.id} 3`);
      }),
    );
    const all = senders.map((s) => `${s.id} 3`).sort();
    expect(await listOn(0, target)).toEqual(all);
    expect(await listOn(1, target)).toEqual(all);
  });
});

describe("a friend's change announced by auth (USER_UPDATE)", () => {
  it('drops the friend from every replica, so both lists show the new name', async () => {
    const [a, b] = await Promise.all([member(), member()]);
    await change(0, a, 'PUT', `/${b.id}`);
    await warm(a);

    const renamed = `${b.username}x`;
    const patch = await call<{ id: string; username: string }>(edges[0]!.base, '/api/v9/users/@me', {
      token: b.token,
      method: 'PATCH',
      json: { username: renamed, password: b.password },
    });
    expect(patch.status).toBe(200);
    // The envelope auth's outbox publishes for it (events.auth.USER_UPDATE, the user in `data`).
    nats.publish(
      USER_UPDATE_SUBJECT,
      JSON.stringify({
        id: `it-${b.id}`,
        service: 'auth',
        occurred_at: new Date().toISOString(),
        name: 'USER_UPDATE',
        audience: { users: [b.id] },
        data: patch.body,
      }),
    );
    const names = async (n: number) =>
      (await call<{ user: { username: string } }[]>(edges[n]!.base, '/api/v9/users/@me/relationships', { token: a.token })).body.map(
        (r) => r.user.username,
      );
    await expect.poll(() => names(0)).toEqual([renamed]);
    await expect.poll(() => names(1)).toEqual([renamed]);
  });
});

describe('friend requests while the guilds service is down', () => {
  const setFlags = async (who: Member, flags: { all: boolean; mutual_friends: boolean; mutual_guilds: boolean }) => {
    const res = await call(edges[0]!.base, '/api/v9/users/@me/settings', {
      token: who.token,
      method: 'PATCH',
      json: { friend_source_flags: flags },
    });
    expect(res.status).toBe(200);
  };

  it('a target taking requests from mutual guilds only refuses them (fail closed), with 80000 and nothing written', async () => {
    const [target, sender] = await Promise.all([member(), member()]);
    await setFlags(target, { all: false, mutual_friends: false, mutual_guilds: true });
    const res = await call<{ code: number }>(edges[1]!.base, `/api/v9/users/@me/relationships/${target.id}`, {
      token: sender.token,
      method: 'PUT',
      json: {},
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(80000);
    expect(await listOn(0, target)).toEqual([]);
  });

  it('a target taking requests from everyone still gets them', async () => {
    const [target, sender] = await Promise.all([member(), member()]);
    await change(1, sender, 'PUT', `/${target.id}`);
    expect(await listOn(0, target)).toEqual([`${sender.id} 3`]);
  });
});
