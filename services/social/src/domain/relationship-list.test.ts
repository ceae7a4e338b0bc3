import { describe, expect, it } from 'vitest';
import { partialUserView, relationshipView } from '@kith/platform';
import { RelationshipListCache } from './relationship-list.js';
import { RelationshipType as T, type RelationshipRow } from './relationship.types.js';
import { UserCache } from './user-cache.js';
import { contractUser as partialUser } from '@kith/platform/testing';

const OWNER = '100000000000000001';
const FRIEND = '100000000000000002';
const OTHER = '100000000000000003';

const user = partialUser;

const row = (userId: string, targetId: string, type: RelationshipRow['type']): RelationshipRow => ({
  user_id: userId,
  target_id: targetId,
  type,
  nickname: null,
  is_spam_request: false,
  stranger_request: false,
  user_ignored: false,
  origin_application_id: null,
  since: new Date('2026-01-01T00:00:00Z'),
});

/** Rows and versions as the database keeps them, users as auth answers, and counts of every read. */
function setup() {
  const rows: RelationshipRow[] = [row(OWNER, FRIEND, T.FRIEND), row(OWNER, OTHER, T.IMPLICIT)];
  const versions = new Map([[OWNER, '1']]);
  const people = new Map([
    [FRIEND, user(FRIEND, 'friend')],
    [OTHER, user(OTHER, 'other')],
  ]);
  const reads = { lists: 0, users: 0 };
  let clock = 0;
  let gate: Promise<void> | undefined;
  const source = {
    getUsers: async (ids: string[]) => {
      reads.users += 1;
      const answer = new Map(ids.filter((id) => people.has(id)).map((id) => [id, people.get(id)!]));
      if (gate) await gate;
      return answer;
    },
  };
  const users = new UserCache(source, { ttlMs: 60_000, maxEntries: 100, now: () => clock });
  const store = {
    list: async (userId: string) => {
      reads.lists += 1;
      return rows.filter((r) => r.user_id === userId);
    },
    listVersion: async (userId: string) => versions.get(userId) ?? '0',
  };
  const lists = new RelationshipListCache(store, users, { ttlMs: 60_000, maxBytes: 1 << 20, now: () => clock });
  const names = async () =>
    (JSON.parse((await lists.get(OWNER)).body.toString()) as { user: { username: string } }[]).map((r) => r.user.username);
  return {
    rows,
    versions,
    people,
    reads,
    users,
    lists,
    names,
    advance: (ms: number) => (clock += ms),
    /** User reads answer only once the returned function is called. */
    holdUserReads: () => {
      let release = () => undefined as void;
      gate = new Promise<void>((resolve) => (release = resolve));
      return () => {
        gate = undefined;
        release();
      };
    },
  };
}

describe('RelationshipListCache', () => {
  it('renders the list without implicit rows, then answers the same bytes without reading rows or users', async () => {
    const t = setup();
    const first = await t.lists.get(OWNER);
    expect(JSON.parse(first.body.toString())).toEqual([
      expect.objectContaining({ id: FRIEND, type: 1, user: partialUserView(user(FRIEND, 'friend')) }),
    ]);
    // The list READY is served from (over gRPC) renders to the very same bytes.
    expect(Buffer.from(JSON.stringify(first.relationships.map(relationshipView)))).toEqual(first.body);
    const second = await t.lists.get(OWNER);
    expect(second.body).toBe(first.body);
    expect(second.etag).toBe(first.etag);
    expect(t.reads).toEqual({ lists: 1, users: 1 });
  });

  it('rebuilds when the version moves, reusing cached users', async () => {
    const t = setup();
    const before = await t.lists.get(OWNER);
    t.rows[0] = { ...t.rows[0]!, nickname: 'bestie' };
    t.versions.set(OWNER, '2');
    const after = await t.lists.get(OWNER);
    expect(JSON.parse(after.body.toString())[0].nickname).toBe('bestie');
    expect(after.etag).not.toBe(before.etag);
    expect(t.reads).toEqual({ lists: 2, users: 1 });
  });

  it('rebuilds a list when a user it shows is invalidated', async () => {
    const t = setup();
    expect(await t.names()).toEqual(['friend']);
    t.people.set(FRIEND, user(FRIEND, 'renamed'));
    expect(await t.names()).toEqual(['friend']);
    t.users.invalidate(FRIEND);
    expect(await t.names()).toEqual(['renamed']);
  });

  it('keeps nothing read before an invalidation that arrived while it was being read', async () => {
    const t = setup();
    const release = t.holdUserReads();
    const building = t.names();
    await new Promise((resolve) => setImmediate(resolve));
    t.people.set(FRIEND, user(FRIEND, 'renamed'));
    t.users.invalidate(FRIEND);
    release();
    expect(await building).toEqual(['friend']);
    expect(await t.names()).toEqual(['renamed']);
  });

  it('uses nothing older than the TTL, and nothing at all after a clear', async () => {
    const t = setup();
    await t.names();
    t.people.set(FRIEND, user(FRIEND, 'renamed'));
    t.advance(60_001);
    expect(await t.names()).toEqual(['renamed']);
    t.people.set(FRIEND, user(FRIEND, 'again'));
    t.users.clear();
    expect(await t.names()).toEqual(['again']);
  });

  it('shows a deleted user for a target auth does not know', async () => {
    const t = setup();
    t.people.delete(FRIEND);
    expect(await t.names()).toEqual(['deleted_user']);
  });
});
