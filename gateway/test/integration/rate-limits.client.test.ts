import { REST, RESTEvents, type RESTOptions } from '@discordjs/rest';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unique } from '@kith/platform/testing';
import { startSocial, type RunningSocial } from '../../../services/social/src/app.js';
import { socialConfigSchema } from '../../../services/social/src/config.js';
import { call, closedPort, login, registerUser, startTestAuth, startTestGateway, stopAll, type AuthUnderTest } from './harness.js';

/**
 * A real client library against the production limits: @discordjs/rest schedules every request by
 * the X-RateLimit-* headers it gets back, so a burst larger than a bucket is paced, not refused.
 */

let under: AuthUnderTest;
let social: RunningSocial;
let edge: Awaited<ReturnType<typeof startTestGateway>>;
let setup: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  under = await startTestAuth();
  social = await startSocial(
    socialConfigSchema.parse({
      ...under.stores,
      DB_PREFIX: under.dbPrefix,
      HTTP_PORT: '0',
      GRPC_PORT: '0',
      LOG_LEVEL: 'silent',
      REDIS_PREFIX: `${unique('social')}:`,
      INTERNAL_TOKEN_PUBLIC_KEY: under.keys.publicKey,
      AUTH_GRPC_ADDR: `127.0.0.1:${under.auth.grpcPort}`,
      GUILDS_GRPC_ADDR: `127.0.0.1:${await closedPort()}`,
    }),
  );
  const services = { SOCIAL_HTTP_URL: `http://127.0.0.1:${social.httpPort}` };
  edge = await startTestGateway(under, { ...services, RATE_LIMITS_SCALE: '1' });
  setup = await startTestGateway(under, services);
});

afterAll(async () => {
  await stopAll(edge?.closers, setup?.closers, social?.closers, under?.auth.closers);
});

describe('@discordjs/rest against the edge’s limits', () => {
  it('when it sends 22 friend requests at once (10 per 10 s allowed), then it paces them by the headers and every one is made', async () => {
    const sender = await registerUser(setup.base);
    const friends = await Promise.all(Array.from({ length: 22 }, () => registerUser(setup.base).then((u) => login(setup.base, u))));
    const dispatcher = new Agent({ localAddress: '127.0.4.1' });
    const rest = new REST({
      api: `${edge.base}/api`,
      version: '10',
      // A user's token travels raw: no scheme before it.
      authPrefix: '' as RESTOptions['authPrefix'],
      // The library has an undici of its own; an Agent of this one speaks the same dispatch protocol.
      agent: dispatcher as unknown as RESTOptions['agent'],
    }).setToken(sender.token);
    const statuses: number[] = [];
    let paced = 0;
    rest.on(RESTEvents.Response, (_request, response) => void statuses.push(response.status));
    rest.on(RESTEvents.RateLimited, () => void paced++);

    try {
      await Promise.all(friends.map((f) => rest.put(`/users/@me/relationships/${f.userId}`, { body: {} })));
    } finally {
      await dispatcher.close();
    }

    // Every request was made once and answered 204; none was refused: the library waited instead.
    expect(statuses).toHaveLength(22);
    expect(statuses.every((s) => s === 204)).toBe(true);
    expect(paced).toBeGreaterThanOrEqual(2);
    const outgoing = await call<{ id: string; type: number }[]>(setup.base, '/api/v9/users/@me/relationships', { token: sender.token });
    expect(
      outgoing.body
        .filter((r) => r.type === 4)
        .map((r) => r.id)
        .sort(),
    ).toEqual(friends.map((f) => f.userId).sort());
  }, 90_000);
});
