import { afterAll, describe, expect, it } from 'vitest';
import { api } from './client.js';
import {
  befriend,
  closeSocialGrpc,
  expectNoContent,
  online,
  people,
  settle,
  socialGrpc,
  strangerId,
  type Person,
  put,
} from './social.fixtures.js';

const REASONS = [{ type: 1, platform: 'contacts', name: 'X' }];

async function suggest(owner: Person, suggested: Person): Promise<void> {
  await socialGrpc().addFriendSuggestion({
    userId: owner.id,
    suggestedUserId: suggested.id,
    reasons: REASONS,
    fromSuggestedUserContacts: true,
  });
}

async function suggestions(p: Person) {
  const res = await api('GET', '/friend-suggestions', { token: p.token });
  expect(res.status).toBe(200);
  return res.json as unknown as {
    suggested_user: { id: string; username: string };
    reasons: unknown[];
    from_suggested_user_contacts: boolean;
  }[];
}

/** Ways the owner and the suggested user can already be related, each of which hides the suggestion. */
const RELATED: [string, (owner: Person, other: Person) => Promise<void>][] = [
  ['they are friends', (o, s) => befriend(o, s)],
  ['the owner blocks them', async (o, s) => expectNoContent(await put(o, s, { type: 2 }))],
  ['they block the owner', async (o, s) => expectNoContent(await put(s, o, { type: 2 }))],
  ['the owner asked them', async (o, s) => expectNoContent(await put(o, s))],
  ['they asked the owner', async (o, s) => expectNoContent(await put(s, o))],
];

afterAll(() => closeSocialGrpc());

describe.concurrent('friend suggestions', () => {
  it('when a suggestion is fed over gRPC, then GET lists it with the suggested user and FRIEND_SUGGESTION_CREATE arrives', async () => {
    const [ownerP, suggested] = await people(2);
    const owner = await online(ownerP);
    try {
      await suggest(owner, suggested);
      const [created] = await settle(owner);
      const expected = {
        suggested_user: { id: suggested.id, username: suggested.username, discriminator: '0' },
        reasons: REASONS,
        from_suggested_user_contacts: true,
      };
      expect(created).toMatchObject({ t: 'FRIEND_SUGGESTION_CREATE', d: expected });
      const list = await suggestions(owner);
      expect(list).toHaveLength(1);
      expect(list[0]).toMatchObject(expected);
      // Suggestions are one-sided.
      expect(await suggestions(suggested)).toEqual([]);
    } finally {
      owner.ws.close();
    }
  });

  it.for(RELATED)('when %s, then the suggestion is left out', async ([, relate]) => {
    const [owner, suggested, other] = await people(3);
    await suggest(owner, suggested);
    await suggest(owner, other);
    await relate(owner, suggested);
    expect((await suggestions(owner)).map((s) => s.suggested_user.id)).toEqual([other.id]);
  });

  it('when a suggestion is removed, then 204, FRIEND_SUGGESTION_DELETE with suggested_user_id, and it is gone; removing it again sends nothing', async () => {
    const [ownerP, suggested] = await people(2);
    const owner = await online(ownerP);
    try {
      await suggest(owner, suggested);
      await settle(owner);

      expectNoContent(await api('DELETE', `/friend-suggestions/${suggested.id}`, { token: owner.token }));
      const events = await settle(owner);
      expect(events.map((d) => ({ t: d.t, d: d.d }))).toEqual([{ t: 'FRIEND_SUGGESTION_DELETE', d: { suggested_user_id: suggested.id } }]);
      expect(await suggestions(owner)).toEqual([]);

      for (const id of [suggested.id, strangerId()])
        expectNoContent(await api('DELETE', `/friend-suggestions/${id}`, { token: owner.token }));
      expect(await settle(owner)).toEqual([]);
    } finally {
      owner.ws.close();
    }
  });
});
