import { afterAll, describe, expect, it } from 'vitest';
import { createClient } from '@kith/platform';
import { GuildsService } from '@kith/proto/guilds/v1/guilds';
import { api } from './client.js';
import { expectNoContent, people, portOffset, rowFor, type Person } from './social.fixtures.js';

/** The guilds service's gRPC port in the system under test (scripts/processes.mjs, same offset as the edge). */
const guilds = createClient(GuildsService, `127.0.0.1:${50054 + portOffset()}`, 5000);
afterAll(() => guilds.close());

const send = (from: Person, to: Person) => api('POST', '/users/@me/relationships', { token: from.token, body: { username: to.username } });

async function onlyMutualGuilds(p: Person): Promise<void> {
  const res = await api('PATCH', '/users/@me/settings', {
    token: p.token,
    body: { friend_source_flags: { all: false, mutual_friends: false, mutual_guilds: true } },
  });
  expect(res.status).toBe(200);
}

/** A guild `owner` creates through the API, with `members` added as joining would (guilds' AddMember). */
async function guildOf(owner: Person, ...members: Person[]): Promise<string> {
  const created = await api('POST', '/guilds', { token: owner.token, body: { name: 'mutual' } });
  expect(created.status).toBe(201);
  const guildId = created.json.id as string;
  for (const m of members) await guilds.addMember({ guildId, userId: m.id });
  return guildId;
}

describe.concurrent('friend requests to a user who takes them from mutual guilds only', () => {
  it('when the sender shares a guild with the target, then the request goes through', async () => {
    const [target, member] = await people(2);
    await onlyMutualGuilds(target);
    await guildOf(target, member);
    expectNoContent(await send(member, target));
    expect(await rowFor(target, member)).toMatchObject({ type: 3 });
  });

  it('when the sender shares no guild (only a guild of its own), then 80000 and nothing is written', async () => {
    const [target, stranger, other] = await people(3);
    await onlyMutualGuilds(target);
    await guildOf(other, stranger);
    const res = await send(stranger, target);
    expect(res.status).toBe(400);
    expect(res.json.code).toBe(80000);
    expect(await rowFor(target, stranger)).toBeUndefined();
  });

  it('when the sender has left the guild they shared, then 80000', async () => {
    const [target, leaver] = await people(2);
    await onlyMutualGuilds(target);
    const guildId = await guildOf(target, leaver);
    await guilds.removeMember({ guildId, userId: leaver.id });
    const res = await api('PUT', `/users/@me/relationships/${target.id}`, { token: leaver.token, body: {} });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe(80000);
  });
});

describe.concurrent('stranger requests and guilds', () => {
  it('when the sender shares a small guild with the target (and no friend), then the request is no stranger request', async () => {
    const [target, member] = await people(2);
    await guildOf(target, member);
    expectNoContent(await send(member, target));
    expect(await rowFor(target, member)).toMatchObject({ type: 3, stranger_request: false });
  });

  it('when they share neither a friend nor a guild, then the request is a stranger request', async () => {
    const [target, stranger] = await people(2);
    expectNoContent(await send(stranger, target));
    expect(await rowFor(target, stranger)).toMatchObject({ type: 3, stranger_request: true });
  });
});
