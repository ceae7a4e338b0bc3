import { randomInt } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, fieldCode, uniqueName } from './client.js';
import { codeTextedTo } from './inbox.js';
import { person, rowFor, type Person } from './social.fixtures.js';
import { GatewayClient } from './ws-client.js';

// Issue 17 item 12: the platform's contact-sync flow feeds friend suggestions and Bulk Add through
// the API. A device uploads phone numbers; auth answers who among them lets themselves be found by
// phone (friend_discovery_flags); social suggests them and issues the bulk-add token Bulk Add takes.

const FIND_BY_PHONE = 2;
const MUTUAL_CONTACT_INFO_ONLY = 1;
const ANYONE_WITH_CONTACT_INFO = 2;

const newPhone = () => `+1212${randomInt(200, 1000)}${String(randomInt(0, 10_000)).padStart(4, '0')}`;

interface PhonePerson extends Person {
  phone: string;
}

interface Suggestion {
  suggested_user: { id: string; username: string };
  reasons: { type: number; platform: string; name: string }[];
  from_suggested_user_contacts: boolean;
}

/** An account registered by phone, findable by it when `findable`. */
async function phonePerson(findable: boolean): Promise<PhonePerson> {
  const phone = newPhone();
  // Each from its own loopback source: registrations are limited per client address.
  const from = `127.0.${randomInt(2, 250)}.${randomInt(2, 250)}`;
  expect((await api('POST', '/auth/register/phone', { from, body: { phone } })).status).toBe(204);
  const verified = await api('POST', '/phone-verifications/verify', { from, body: { phone, code: await codeTextedTo(phone) } });
  const username = uniqueName();
  const registered = await api('POST', '/auth/register', {
    from,
    body: { username, phone_token: verified.json.token, password: 'a contact sync password', consent: true, date_of_birth: '1990-01-01' },
  });
  expect(registered.status, JSON.stringify(registered.json)).toBe(201);
  const token = registered.json.token as string;
  const me = await api('GET', '/users/@me', { token });
  if (findable) {
    const settings = await api('PATCH', '/users/@me/settings', { token, body: { friend_discovery_flags: FIND_BY_PHONE } });
    expect(settings.status).toBe(200);
    expect(settings.json.friend_discovery_flags).toBe(FIND_BY_PHONE);
  }
  return { id: me.json.id as string, username, token, phone };
}

const connect = (p: Person) => api('PUT', '/users/@me/connections/contacts/@me', { token: p.token, body: { name: 'Phone Contacts' } });

function sync(p: Person, phones: string[], options: { allowed?: number; reverse?: boolean; background?: boolean } = {}) {
  return api('PUT', '/users/@me/connections/contacts/@me/external-friend-list-entries', {
    token: p.token,
    body: {
      friend_list_entries: phones.map((friend_id) => ({ friend_id })),
      background: options.background ?? false,
      allowed_in_suggestions: options.allowed ?? ANYONE_WITH_CONTACT_INFO,
      include_mutual_friends_count: false,
      ...(options.reverse !== undefined ? { add_reverse_friend_suggestions: options.reverse } : {}),
    },
  });
}

const suggestionsOf = async (p: Person) => (await api('GET', '/friend-suggestions', { token: p.token })).json as unknown as Suggestion[];

describe('contact sync', () => {
  let alice: PhonePerson;
  let bob: PhonePerson;
  let hidden: PhonePerson;

  beforeAll(async () => {
    [alice, bob, hidden] = await Promise.all([phonePerson(true), phonePerson(true), phonePerson(false)]);
  });

  it('when a user syncs contacts, then the findable ones are suggested (with the event), and the bulk-add token adds exactly them', async () => {
    const connection = await connect(alice);
    expect(connection.status).toBe(200);
    expect(connection.json).toMatchObject({ type: 'contacts', name: 'Phone Contacts', verified: true, revoked: false });
    const ws = await GatewayClient.connect(alice.token);
    try {
      // Bob's number as a device may hold it, with spaces and dashes.
      const bobAsWritten = `${bob.phone.slice(0, 2)} ${bob.phone.slice(2, 5)}-${bob.phone.slice(5)}`;
      const synced = await sync(alice, [bobAsWritten, hidden.phone, newPhone()]);
      expect(synced.status, JSON.stringify(synced.json)).toBe(200);
      const suggestions = synced.json.friend_suggestions as unknown as Suggestion[];
      expect(suggestions).toEqual([
        {
          suggested_user: expect.objectContaining({ id: bob.id, username: bob.username }),
          reasons: [{ type: 1, platform: 'contacts', name: bob.username }],
          from_suggested_user_contacts: false,
        },
      ]);
      expect(typeof synced.json.bulk_add_token).toBe('string');

      await ws.takeThrough(
        (d) => d.t === 'FRIEND_SUGGESTION_CREATE' && (d.d as { suggested_user: { id: string } }).suggested_user.id === bob.id,
      );
      expect((await suggestionsOf(alice)).map((s) => s.suggested_user.id)).toEqual([bob.id]);
      const settings = await api('GET', '/users/@me/connections/contacts/@me/external-friend-list-entries/settings', {
        token: alice.token,
      });
      expect(settings.json).toEqual({ allowed_in_suggestions: ANYONE_WITH_CONTACT_INFO });

      // The token covers Bob only: the one who hid from discovery cannot be added with it.
      const bulk = await api('POST', '/users/@me/relationships/bulk', {
        token: alice.token,
        body: { user_ids: [bob.id, hidden.id], token: synced.json.bulk_add_token },
      });
      expect(bulk.status, JSON.stringify(bulk.json)).toBe(200);
      expect(bulk.json).toEqual({ successful_requests: [bob.id], failed_requests: [hidden.id] });
      expect((await rowFor(alice, bob))?.type).toBe(4);
      // Single use.
      const again = await api('POST', '/users/@me/relationships/bulk', {
        token: alice.token,
        body: { user_ids: [bob.id], token: synced.json.bulk_add_token },
      });
      expect(again.status).toBe(400);
      expect(fieldCode(again.json, 'token')).toBe('CONTACT_SYNC_TOKEN_INVALID');
      // A pending request stands between them: no longer suggested, no token.
      const resynced = await sync(alice, [bob.phone]);
      expect(resynced.json).toEqual({ bulk_add_token: null, friend_suggestions: [] });
    } finally {
      ws.close();
    }
  });

  it('when someone allows suggestions only to mutual contacts, then they are suggested only once they have the syncer too, marked as such', async () => {
    const [carol, dave] = await Promise.all([phonePerson(true), phonePerson(true)]);
    expect((await connect(carol)).status).toBe(200);
    expect((await connect(dave)).status).toBe(200);
    expect((await sync(dave, [], { allowed: MUTUAL_CONTACT_INFO_ONLY })).status).toBe(200);

    const oneWay = await sync(carol, [dave.phone]);
    expect(oneWay.json).toEqual({ bulk_add_token: null, friend_suggestions: [] });

    // Dave syncs Carol (and asks for those who have him): Carol is suggested to him, known to have him.
    const daveSync = await sync(dave, [carol.phone], { allowed: MUTUAL_CONTACT_INFO_ONLY, reverse: true });
    expect(daveSync.json.friend_suggestions).toEqual([
      expect.objectContaining({ suggested_user: expect.objectContaining({ id: carol.id }), from_suggested_user_contacts: true }),
    ]);
    const mutual = await sync(carol, [dave.phone]);
    expect(mutual.json.friend_suggestions).toEqual([
      expect.objectContaining({ suggested_user: expect.objectContaining({ id: dave.id }), from_suggested_user_contacts: true }),
    ]);
  });

  it('when someone has the user in their contacts, then a reverse sync suggests them, and a background sync answers no suggestions', async () => {
    const [erin, frank] = await Promise.all([phonePerson(true), phonePerson(true)]);
    expect((await connect(erin)).status).toBe(200);
    expect((await connect(frank)).status).toBe(200);
    expect((await sync(frank, [erin.phone])).status).toBe(200);
    const background = await sync(erin, [], { reverse: true, background: true });
    expect(background.json.friend_suggestions).toEqual([]);
    expect(typeof background.json.bulk_add_token).toBe('string');
    expect((await suggestionsOf(erin)).map((s) => [s.suggested_user.id, s.from_suggested_user_contacts])).toEqual([[frank.id, true]]);
  });

  it('when there is no contact-sync connection, or another connection id, then 404 10017', async () => {
    const stranger = await person();
    const noConnection = await sync(stranger, [newPhone()]);
    expect(noConnection.status).toBe(404);
    expect(noConnection.json.code).toBe(10017);
    const other = await api('PUT', '/users/@me/connections/contacts/123', { token: stranger.token, body: { name: 'x' } });
    expect(other.status).toBe(404);
    expect(other.json.code).toBe(10017);
    const removed = await api('DELETE', '/users/@me/connections/contacts/@me', { token: stranger.token });
    expect(removed.status).toBe(404);
  });

  it('when the sync body is malformed, then 50035 names the fields, and bad JSON is 50109', async () => {
    const someone = await person();
    expect((await connect(someone)).status).toBe(200);
    const bad = await api('PUT', '/users/@me/connections/contacts/@me/external-friend-list-entries', {
      token: someone.token,
      body: { friend_list_entries: [{ friend_id: '' }], allowed_in_suggestions: 3 },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe(50035);
    expect(Object.keys(bad.json.errors ?? {})).toEqual(
      expect.arrayContaining(['background', 'allowed_in_suggestions', 'friend_list_entries']),
    );
    const json = await api('PUT', '/users/@me/connections/contacts/@me/external-friend-list-entries', { token: someone.token, raw: '{' });
    expect(json.json.code).toBe(50109);
    const anonymous = await sync({ ...someone, token: '' }, []);
    expect(anonymous.status).toBe(401);
  });

  it('when the connection is removed, then syncing needs it again', async () => {
    const someone = await person();
    expect((await connect(someone)).status).toBe(200);
    expect((await api('DELETE', '/users/@me/connections/contacts/@me', { token: someone.token })).status).toBe(204);
    expect((await sync(someone, [])).status).toBe(404);
  });
});
