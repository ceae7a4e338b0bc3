import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthHarness, registration } from './auth.harness.js';

let auth: AuthHarness;

beforeAll(async () => {
  // One password hash at a time and none waiting, each a costly one: a burst of registrations
  // overflows at once (what a surge does to the defaults, 2 at a time and 64 waiting, on a busy machine).
  auth = await AuthHarness.start({ ARGON2_CONCURRENCY: 1, ARGON2_MAX_WAITING: 0, ARGON2_MEMORY_KIB: 65536, ARGON2_ITERATIONS: 4 });
});

afterAll(async () => {
  await auth?.close();
});

const newIp = () => `10.${randomInt(0, 256)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;

describe('password hashing under a surge (registrations and logins at once)', () => {
  it('when more registrations come than may hash or wait, then the extra ones answer 503 with Retry-After and create nothing; the others register', async () => {
    const bodies = Array.from({ length: 12 }, () => registration());
    const replies = await Promise.all(
      bodies.map((body) => auth.request<{ token?: string }>('POST', '/auth/register', { identity: { clientIp: newIp() }, body })),
    );
    expect(replies.map((r) => r.status).filter((s) => s !== 201 && s !== 503)).toEqual([]);
    const refused = replies.filter((r) => r.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    expect(replies.some((r) => r.status === 201)).toBe(true);
    for (const reply of refused) {
      expect(reply.body).toEqual({ code: 0, message: '503: Service Unavailable' });
      expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // A refused registration made no account: its email is free, and takes a registration later.
    const emails = bodies.map((b) => b.email as string);
    const stored = await auth.db.selectFrom('users').select('email').where('email', 'in', emails).execute();
    expect(stored.map((u) => u.email).sort()).toEqual(
      bodies
        .filter((_, i) => replies[i]!.status === 201)
        .map((b) => b.email as string)
        .sort(),
    );
    const again = bodies[replies.findIndex((r) => r.status === 503)]!;
    const retried = await auth.request('POST', '/auth/register', { identity: { clientIp: newIp() }, body: again });
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
  });
});
