import { afterAll, describe, expect, it } from 'vitest';
import { api } from './client.js';
import {
  closeSocialGrpc,
  expectNoContent,
  people,
  person,
  relationships,
  rowFor,
  socialDatabase,
  strangerId,
  type Person,
  put,
} from './social.fixtures.js';

const MAX_FRIENDS = { code: 30002, message: 'Maximum number of friends reached (1000)' };
const PAIRS = 10;

const db = socialDatabase();
afterAll(async () => {
  closeSocialGrpc();
  await db.end();
});

/**
 * Gives a user 998 friends without registering 998 users (argon2 makes that minutes): both rows
 * of each friendship go straight into social's own table, exactly as an accepted request leaves
 * them. The friends are ids no account has; social renders them as deleted users.
 */
async function seedFriends(user: Person, count: number): Promise<void> {
  const ids = Array.from({ length: count }, () => strangerId());
  await db.query(
    `INSERT INTO relationships (user_id, target_id, type)
     SELECT $1::bigint, f, 1 FROM unnest($2::bigint[]) AS f
     UNION ALL SELECT f, $1::bigint, 1 FROM unnest($2::bigint[]) AS f`,
    [user.id, ids],
  );
}

async function friendCount(user: Person): Promise<number> {
  const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM relationships WHERE user_id = $1 AND type = 1', [user.id]);
  return Number(rows[0]!.n);
}

/** The answers of parallel requests, as `204` or their JSON error body. */
const outcomes = (answers: { status: number; json: unknown }[]) => answers.map((r) => (r.status === 204 ? 204 : r.json));

describe('relationships under concurrency', () => {
  const SIMULTANEOUS: [string, (from: Person, to: Person) => ReturnType<typeof api>][] = [
    ['by username', (from, to) => api('POST', '/users/@me/relationships', { token: from.token, body: { username: to.username } })],
    ['by id, consenting to a stranger', (from, to) => put(from, to, { confirm_stranger_request: true })],
  ];

  it.for(SIMULTANEOUS)('when two users ask each other %s at the same moment (×10), then they always end as friends', async ([, ask]) => {
    const users = await people(PAIRS * 2);
    const pairs = Array.from({ length: PAIRS }, (_, i) => [users[2 * i]!, users[2 * i + 1]!] as const);
    const answers = await Promise.all(pairs.map(([a, b]) => Promise.all([ask(a, b), ask(b, a)])));
    expect(answers.flat().map((r) => r.status)).toEqual(Array(PAIRS * 2).fill(204));
    for (const [a, b] of pairs) {
      expect([(await rowFor(a, b))?.type, (await rowFor(b, a))?.type]).toEqual([1, 1]);
      expect(await relationships(a)).toHaveLength(1);
    }
  });

  it('when a user with 998 friends accepts 10 incoming requests at once, then exactly 2 succeed, the rest 30002, and they have 1000 friends', async () => {
    const [popular, askers, late] = await Promise.all([person(), people(10), person()]);
    await seedFriends(popular, 998);
    for (const asker of askers) expectNoContent(await put(asker, popular));

    const answers = await Promise.all(askers.map((asker) => put(popular, asker, { type: 1, confirm_stranger_request: true })));
    const result = outcomes(answers);
    expect(result.filter((r) => r === 204)).toHaveLength(2);
    expect(result.filter((r) => r !== 204)).toEqual(Array(8).fill(MAX_FRIENDS));
    expect(await friendCount(popular)).toBe(1000);
    const list = await relationships(popular);
    expect(list.filter((r) => r.type === 1)).toHaveLength(1000);
    expect(list.filter((r) => r.type === 3)).toHaveLength(8);

    // At the cap, nobody new can even ask, either way.
    expect((await api('POST', '/users/@me/relationships', { token: late.token, body: { username: popular.username } })).json).toEqual(
      MAX_FRIENDS,
    );
    expect((await put(popular, late)).json).toEqual(MAX_FRIENDS);
  });

  it('when 10 users accept the requests of a user with 998 friends at once, then exactly 2 succeed, the rest 30002', async () => {
    const [popular, asked] = await Promise.all([person(), people(10)]);
    await seedFriends(popular, 998);
    for (const other of asked) expectNoContent(await put(popular, other));

    const answers = await Promise.all(asked.map((other) => put(other, popular, { type: 1, confirm_stranger_request: true })));
    const result = outcomes(answers);
    expect(result.filter((r) => r === 204)).toHaveLength(2);
    expect(result.filter((r) => r !== 204)).toEqual(Array(8).fill(MAX_FRIENDS));
    expect(await friendCount(popular)).toBe(1000);
    const accepted = asked.filter((_, i) => answers[i]!.status === 204);
    for (const other of accepted) expect((await rowFor(other, popular))?.type).toBe(1);
    for (const other of asked.filter((o) => !accepted.includes(o))) expect((await rowFor(other, popular))?.type).toBe(3);
  });
});
