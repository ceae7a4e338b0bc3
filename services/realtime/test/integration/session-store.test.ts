import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createRedis, type Redis } from '@kith/platform';
import { unique } from '@kith/platform/testing';
import type { NewSession } from '../../src/domain/ports.js';
import { SessionStore } from '../../src/store/session.store.js';

let redis: Redis;
let store: SessionStore;

beforeAll(() => {
  redis = createRedis(inject('stores').REDIS_URL, `${unique('rt-store')}:`);
  store = new SessionStore(redis, { ttlMs: 60_000, maxFrames: 250 });
});

afterAll(async () => {
  await redis.quit();
});

/** A new session owned by `owner`, with READY as frame 1, at stream position 10. */
async function newSession(owner = 'conn-a', intents?: number): Promise<{ id: string; session: NewSession }> {
  const id = unique('s');
  const session: NewSession = {
    userId: 'u1',
    authSessionId: 'auth',
    authSessionIdHash: 'hash',
    owner,
    streamSeq: 10,
    guildIds: ['g1'],
    ...(intents !== undefined ? { intents } : {}),
  };
  await store.create(id, session, 'READY');
  return { id, session };
}

const claim = (id: string, clientSeq: number, owner = 'conn-b') =>
  store.claim(id, { userId: 'u1', clientSeq, owner, authSessionId: 'auth', authSessionIdHash: 'hash' });

describe('SessionStore.append', () => {
  it('when one write carries several frames for several sessions, then each session has its frames in order, and a resume replays them', async () => {
    // A bot's session (GUILDS | GUILD_MEMBERS | GUILD_PRESENCES): its resume is given its intents back.
    const a = await newSession('conn-a', 259);
    const b = await newSession();
    const written = await store.append([
      {
        sessionId: a.id,
        owner: 'conn-a',
        frames: [
          { seq: 2, streamSeq: 11, frame: 'A2' },
          { seq: 3, streamSeq: 12, frame: 'A3', membership: { op: 'add', guildId: 'g2' } },
        ],
      },
      { sessionId: b.id, owner: 'conn-a', frames: [{ seq: 2, streamSeq: 12, frame: 'B2', membership: { op: 'remove', guildId: 'g1' } }] },
    ]);
    expect(written).toEqual([true, true]);
    expect(await claim(a.id, 1)).toEqual({
      status: 'ok',
      seq: 3,
      streamSeq: 12,
      frames: ['A2', 'A3'],
      guildIds: expect.arrayContaining(['g1', 'g2']),
      intents: 259,
    });
    expect(await claim(b.id, 1)).toEqual({ status: 'ok', seq: 2, streamSeq: 12, frames: ['B2'], guildIds: [], intents: 0 });
  });

  it('when a write is repeated (its reply was lost and it is retried), then no frame is recorded twice', async () => {
    const { id } = await newSession();
    const write = { sessionId: id, owner: 'conn-a', frames: [{ seq: 2, streamSeq: 11, frame: 'F2' }] };
    await store.append([write]);
    await store.append([write, { ...write, sessionId: id }]);
    await store.append([{ ...write, frames: [...write.frames, { seq: 3, streamSeq: 13, frame: 'F3' }] }]);
    expect(await claim(id, 1)).toMatchObject({ status: 'ok', seq: 3, streamSeq: 13, frames: ['F2', 'F3'] });
  });

  it('when a session was claimed by another connection, then only its write is refused and the others of the round trip go through', async () => {
    const taken = await newSession();
    const kept = await newSession();
    await claim(taken.id, 1, 'conn-elsewhere');
    const written = await store.append([
      { sessionId: taken.id, owner: 'conn-a', frames: [{ seq: 2, streamSeq: 11, frame: 'LOST' }] },
      { sessionId: kept.id, owner: 'conn-a', frames: [{ seq: 2, streamSeq: 11, frame: 'KEPT' }] },
    ]);
    expect(written).toEqual([false, true]);
    expect(await claim(taken.id, 1)).toMatchObject({ status: 'ok', seq: 1, frames: [] });
    expect(await claim(kept.id, 1)).toMatchObject({ status: 'ok', seq: 2, frames: ['KEPT'] });
  });

  it('when more frames than the buffer keeps are written at once, then the latest ones are kept', async () => {
    const small = new SessionStore(redis, { ttlMs: 60_000, maxFrames: 2 });
    const { id } = await newSession();
    const frames = [2, 3, 4].map((seq) => ({ seq, streamSeq: 10 + seq, frame: `F${seq}` }));
    await small.append([{ sessionId: id, owner: 'conn-a', frames }]);
    expect(await claim(id, 2)).toMatchObject({ status: 'ok', seq: 4, frames: ['F3', 'F4'] });
    expect(await claim(id, 1)).toEqual({ status: 'seq' });
  });
});
