import { afterAll, describe, expect, it } from 'vitest';
import { api, fieldCode } from './client.js';
import {
  befriend,
  closeSocialGrpc,
  eventSig,
  expectNoContent,
  online,
  people,
  person,
  relationships,
  rowFor,
  rowSig,
  settle,
  socialGrpc,
  type Online,
  type Person,
  type Tuple,
  peopleOnline,
  put,
} from './social.fixtures.js';

const ignore = (from: Person, to: Person) => api('PUT', `/users/@me/relationships/${to.id}/ignore`, { token: from.token });

let shared: Promise<Person[]> | undefined;
/** Ten users who only ever receive requests: every sender of this file can send its ten to the same ones. */
const receivers = () => (shared ??= people(10));

/**
 * The spam rule (relationships.service.ts): an account younger than a day that already has 10
 * requests sent in the last day gets its next ones flagged. Fresh accounts are younger than a
 * day, so sending 10 requests is all it takes.
 */
async function spammers<N extends number>(n: N): Promise<Tuple<Person, N>> {
  const [dummies, senders] = await Promise.all([receivers(), people(n)]);
  const all: Person[] = senders;
  await Promise.all(all.map((s) => Promise.all(dummies.map(async (d) => expectNoContent(await put(s, d))))));
  return senders;
}

describe.concurrent('the spam flag', () => {
  it('when a brand-new account that already sent 10 requests sends another, then only that one is flagged is_spam_request', async () => {
    const [sender, dummies, target] = await Promise.all([person(), receivers(), person().then(online)]);
    try {
      for (const d of dummies) expectNoContent(await put(sender, d));
      for (const d of dummies) expect(await rowFor(d, sender)).toMatchObject({ type: 3, is_spam_request: false });
      await settle(target);

      expectNoContent(await api('POST', '/users/@me/relationships', { token: sender.token, body: { username: target.username } }));
      const [add] = await settle(target);
      expect(add).toMatchObject({ t: 'RELATIONSHIP_ADD', d: { id: sender.id, type: 3, is_spam_request: true, should_notify: false } });
      expect(rowSig(await rowFor(target, sender))).toBe('3 stranger spam');
      // The sender's own row says nothing about it.
      expect(await rowFor(sender, target)).toMatchObject({ type: 4, is_spam_request: false });
    } finally {
      target.ws.close();
    }
  });
});

type Sender = 'spam' | 'spam+ignored' | 'plain' | 'plain+ignored';
const SENDERS: Sender[] = ['spam', 'spam+ignored', 'plain', 'plain+ignored'];

const BULK_CASES: { name: string; query: string; body: unknown; gone: Sender[] }[] = [
  { name: 'filters [1] (SPAM)', query: '', body: { filters: [1] }, gone: ['spam', 'spam+ignored'] },
  { name: 'filters [2] (IGNORED)', query: '', body: { filters: [2] }, gone: ['spam+ignored', 'plain+ignored'] },
  { name: 'filters [1, 2] (SPAM and IGNORED)', query: '', body: { filters: [1, 2] }, gone: ['spam+ignored'] },
  { name: 'the deprecated ?only_spam=true', query: '?only_spam=true', body: undefined, gone: ['spam', 'spam+ignored'] },
  { name: 'no filters', query: '?relationship_type=3', body: undefined, gone: SENDERS },
];

// One case at a time: each builds a dozen users and their sockets, and the file's setup is not a load test.
describe('bulk remove of incoming requests', () => {
  it.for(BULK_CASES)('when the target bulk-removes with $name, then only matching incoming requests go', async ({ query, body, gone }) => {
    const [[spam, spamIgnored], [plain, plainIgnored, target, friend, asked, blocked]] = await Promise.all([spammers(2), people(6)]);
    const senders: Record<Sender, Online> = {
      spam: await online(spam),
      'spam+ignored': await online(spamIgnored),
      plain: await online(plain),
      'plain+ignored': await online(plainIgnored),
    };
    const t = await online(target);
    try {
      for (const s of SENDERS) expectNoContent(await put(senders[s], t));
      expectNoContent(await ignore(t, senders['spam+ignored']));
      expectNoContent(await ignore(t, senders['plain+ignored']));
      // Relationships of other kinds, which bulk removal never touches.
      await befriend(t, friend);
      expectNoContent(await put(t, asked));
      expectNoContent(await put(t, blocked, { type: 2 }));
      const before = await relationships(t);
      expect(before.filter((r) => r.type === 3).map(rowSig)).toEqual([
        '3 stranger spam',
        '3 stranger spam ignored',
        '3 stranger',
        '3 stranger ignored',
      ]);
      await Promise.all([t, ...Object.values(senders)].map(settle));

      expectNoContent(await api('DELETE', `/users/@me/relationships${query}`, { token: t.token, body }));

      const after = await relationships(t);
      for (const s of SENDERS) {
        const removed = gone.includes(s);
        const ignored = s.endsWith('+ignored');
        // Each removed sender hears only that its request went; the others hear nothing.
        expect((await settle(senders[s])).map(eventSig), s).toEqual(removed ? ['REMOVE 4'] : []);
        expect(rowSig(await rowFor(senders[s], t)), s).toBe(removed ? '-' : '4');
        // The target's ignore outlives the request it was on.
        const expected = removed ? (ignored ? '0 ignored' : '-') : rowSig(before.find((r) => r.id === senders[s].id));
        expect(rowSig(after.find((r) => r.id === senders[s].id)), s).toBe(expected);
      }
      const targetEvents = await settle(t);
      expect(targetEvents.filter((d) => d.t === 'RELATIONSHIP_REMOVE').map((d) => d.d.id)).toEqual(
        SENDERS.filter((s) => gone.includes(s)).map((s) => senders[s].id),
      );
      for (const other of [friend, asked, blocked])
        expect(after.find((r) => r.id === other.id)).toEqual(before.find((r) => r.id === other.id));
    } finally {
      for (const p of [t, ...Object.values(senders)]) p.ws.close();
    }
  });
});

describe.concurrent('bulk add from a contact sync', () => {
  it('when the token covers some of the ids, then those are asked (or accepted) and the rest are reported failed', async () => {
    const [a, covered1, covered2, uncovered, blocker, asker] = await peopleOnline(6);
    try {
      expectNoContent(await put(blocker, a, { type: 2 }));
      expectNoContent(await put(asker, a));
      await Promise.all([a, covered1, covered2, uncovered, blocker, asker].map(settle));
      const { token } = await socialGrpc().issueContactSyncToken({
        userId: a.id,
        userIds: [covered1.id, covered2.id, blocker.id, asker.id],
      });

      const res = await api('POST', '/users/@me/relationships/bulk', {
        token: a.token,
        body: { user_ids: [covered1.id, uncovered.id, covered2.id, blocker.id, asker.id], token },
      });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ successful_requests: [covered1.id, covered2.id, asker.id], failed_requests: [uncovered.id, blocker.id] });

      expect((await settle(covered1)).map(eventSig)).toEqual(['ADD 3 notify']);
      expect((await settle(covered2)).map(eventSig)).toEqual(['ADD 3 notify']);
      expect((await settle(asker)).map(eventSig)).toEqual(['ADD 1']);
      expect(await settle(uncovered)).toEqual([]);
      expect(await settle(blocker)).toEqual([]);
      expect((await settle(a)).map((d) => `${eventSig(d)} ${d.d.id === asker.id ? 'asker' : 'covered'}`)).toEqual([
        'ADD 4 covered',
        'ADD 4 covered',
        'ADD 1 asker',
      ]);
      expect(Object.fromEntries((await relationships(a)).map((r) => [r.id, r.type]))).toEqual({
        [covered1.id]: 4,
        [covered2.id]: 4,
        [asker.id]: 1,
      });
    } finally {
      for (const p of [a, covered1, covered2, uncovered, blocker, asker]) p.ws.close();
    }
  });

  it('when a token is used a second time, then 50035 on token and nothing more happens', async () => {
    const [a, b, c] = await people(3);
    const { token } = await socialGrpc().issueContactSyncToken({ userId: a.id, userIds: [b.id, c.id] });
    const first = await api('POST', '/users/@me/relationships/bulk', { token: a.token, body: { user_ids: [b.id], token } });
    expect(first.json).toEqual({ successful_requests: [b.id], failed_requests: [] });
    const second = await api('POST', '/users/@me/relationships/bulk', { token: a.token, body: { user_ids: [c.id], token } });
    expect(second.status).toBe(400);
    expect(second.json.code).toBe(50035);
    expect(fieldCode(second.json, 'token')).toBe('CONTACT_SYNC_TOKEN_INVALID');
    expect(await rowFor(c, a)).toBeUndefined();
  });

  it('when someone uses another user’s token, then 50035 on token, and its owner can still use it', async () => {
    const [owner, thief, b] = await people(3);
    const { token } = await socialGrpc().issueContactSyncToken({ userId: owner.id, userIds: [b.id] });
    const stolen = await api('POST', '/users/@me/relationships/bulk', { token: thief.token, body: { user_ids: [b.id], token } });
    expect(stolen.status).toBe(400);
    expect(stolen.json.code).toBe(50035);
    expect(fieldCode(stolen.json, 'token')).toBe('CONTACT_SYNC_TOKEN_INVALID');
    expect(await rowFor(b, thief)).toBeUndefined();
    const own = await api('POST', '/users/@me/relationships/bulk', { token: owner.token, body: { user_ids: [b.id], token } });
    expect(own.json).toEqual({ successful_requests: [b.id], failed_requests: [] });
  });
});

afterAll(() => closeSocialGrpc());
