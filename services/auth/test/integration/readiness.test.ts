import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthHarness } from './auth.harness.js';

let auth: AuthHarness;

beforeAll(async () => {
  auth = await AuthHarness.start();
});

afterAll(async () => {
  await auth?.close();
});

describe('readiness', () => {
  it('when PostgreSQL, Redis and NATS answer, then /readyz is 200 with each check ok', async () => {
    const reply = await auth.request('GET', '/readyz', { identityHeader: null });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ status: 'ok', checks: { postgres: 'ok', redis: 'ok', nats: 'ok' } });
  });

  it('when the process is up, then /healthz is 200 without an identity', async () => {
    const reply = await auth.request('GET', '/healthz', { identityHeader: null });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ status: 'ok' });
  });
});
