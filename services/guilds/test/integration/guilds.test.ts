import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  createGuild,
  sendRaw,
  join,
  newUser,
  outboxEvents,
  startGuildsStack,
  stopGuildsStack,
  type GuildsStack,
  type GuildsUser,
} from './harness.js';

let stack: GuildsStack;
let owner: GuildsUser;
let other: GuildsUser;

beforeAll(async () => {
  stack = await startGuildsStack();
  [owner, other] = await Promise.all([newUser(stack), newUser(stack)]);
});
afterAll(() => stopGuildsStack(stack));

describe('POST /guilds', () => {
  it('when a user creates a guild, then it has @everyone, a general system channel and the creator as owning member, and GUILD_CREATE goes to them', async () => {
    const res = await api(stack, owner, 'POST', '/guilds', { name: '  My Guild  ', verification_level: 1 });
    expect(res.status).toBe(201);
    const guild = res.body;
    expect(guild).toMatchObject({ name: 'My Guild', owner_id: owner.userId, verification_level: 1, features: [], emojis: [] });
    expect(guild.roles).toEqual([
      expect.objectContaining({ id: guild.id, name: '@everyone', position: 0, permissions: expect.stringMatching(/^\d+$/) }),
    ]);
    expect(guild.system_channel_id).toMatch(/^\d+$/);
    // VIEW_CHANNEL and SEND_MESSAGES for everyone; nothing that manages.
    const everyone = BigInt(guild.roles[0].permissions);
    expect(everyone & (1n << 10n)).not.toBe(0n);
    expect(everyone & (1n << 11n)).not.toBe(0n);
    expect(everyone & ((1n << 3n) | (1n << 5n) | (1n << 28n))).toBe(0n);

    const member = await api(stack, owner, 'GET', `/guilds/${guild.id}/members/${owner.userId}`);
    expect(member.status).toBe(200);
    expect(member.body.user.id).toBe(owner.userId);

    const [created] = await outboxEvents(stack, 'GUILD_CREATE', (e) => e.data.id === guild.id);
    expect(created!.audience).toEqual({ users: [owner.userId] });
    expect(created!.data).toMatchObject({
      member_count: 1,
      threads: [],
      members: [expect.objectContaining({ user: expect.objectContaining({ id: owner.userId }) })],
    });
    expect(created!.data.channels).toEqual([
      expect.objectContaining({ id: guild.system_channel_id, name: 'general', type: 0, guild_id: guild.id }),
    ]);
  });

  it('when the body is bad, broken or anonymous, then 50035, 50109 or 401 answers', async () => {
    const short = await api(stack, owner, 'POST', '/guilds', { name: ' a ' });
    expect(short.status).toBe(400);
    expect(short.body.code).toBe(50035);
    expect(short.body.errors.name._errors[0].code).toBe('BASE_TYPE_BAD_LENGTH');
    const missing = await api(stack, owner, 'POST', '/guilds', {});
    expect(missing.body.errors.name._errors[0].code).toBe('BASE_TYPE_REQUIRED');
    const nul = await api(stack, owner, 'POST', '/guilds', { name: 'bad\u0000name' });
    expect(nul.body.errors.name._errors[0].code).toBe('BASE_TYPE_INVALID');
    const level = await api(stack, owner, 'POST', '/guilds', { name: 'ok name', verification_level: 9 });
    expect(level.body.errors.verification_level._errors[0].code).toBe('BASE_TYPE_CHOICES');
    const icon = await api(stack, owner, 'POST', '/guilds', { name: 'ok name', icon: 'not an image' });
    expect(icon.body.errors.icon._errors[0].code).toBe('IMAGE_INVALID');
    const broken = await sendRaw(stack, owner, 'POST', '/guilds', '{"name": "x');
    expect(broken.status).toBe(400);
    expect(broken.body.code).toBe(50109);
    const anonymous = await api(stack, null, 'POST', '/guilds', { name: 'ok name' });
    expect(anonymous.status).toBe(401);
  });
});

describe('GET/PATCH/DELETE /guilds/{id}', () => {
  it('when a non-member asks for a guild that exists, then 403 50001, and 10004 only for one that does not; when a member asks with_counts, then the counts come back', async () => {
    const guild = await createGuild(stack, owner);
    const hidden = await api(stack, other, 'GET', `/guilds/${guild.id}`);
    expect(hidden.status).toBe(403);
    expect(hidden.body.code).toBe(50001);
    const unknown = await api(stack, owner, 'GET', '/guilds/1234');
    expect(unknown.body.code).toBe(10004);
    const notId = await api(stack, owner, 'GET', '/guilds/abc');
    expect(notId.body.code).toBe(50035);
    // A snowflake shape beyond PostgreSQL's signed bigint is still a form error, never a 500.
    const huge = await api(stack, owner, 'GET', '/guilds/18446744073709551615');
    expect(huge.status).toBe(400);
    expect(huge.body.code).toBe(50035);
    const hugeAfter = await api(stack, owner, 'GET', `/guilds/${guild.id}/members?after=9223372036854775808`);
    expect(hugeAfter.body.code).toBe(50035);
    await expect(stack.grpc.getGuild({ guildId: '9223372036854775808' })).rejects.toMatchObject({ body: { code: 50035 } });

    await join(stack, guild.id, other);
    const counted = await api(stack, other, 'GET', `/guilds/${guild.id}?with_counts=true`);
    expect(counted.status).toBe(200);
    expect(counted.body).toMatchObject({ id: guild.id, approximate_member_count: 2, approximate_presence_count: expect.any(Number) });
    const plain = await api(stack, other, 'GET', `/guilds/${guild.id}`);
    expect(plain.body.approximate_member_count).toBeUndefined();
  });

  it('when a guild is edited, then MANAGE_GUILD is needed, only the owner transfers ownership, and GUILD_UPDATE goes to the guild', async () => {
    const guild = await createGuild(stack, owner);
    await join(stack, guild.id, other);
    const denied = await api(stack, other, 'PATCH', `/guilds/${guild.id}`, { name: 'renamed' });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe(50013);
    const steal = await api(stack, other, 'PATCH', `/guilds/${guild.id}`, { owner_id: other.userId });
    expect(steal.body.code).toBe(50013);

    const renamed = await api(stack, owner, 'PATCH', `/guilds/${guild.id}`, { name: 'renamed', description: 'about', afk_timeout: 60 });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'renamed', description: 'about', afk_timeout: 60 });
    const [update] = await outboxEvents(stack, 'GUILD_UPDATE', (e) => e.data.id === guild.id);
    expect(update!.audience).toEqual({ guilds: [guild.id] });
    expect(update!.data.name).toBe('renamed');

    const badChannel = await api(stack, owner, 'PATCH', `/guilds/${guild.id}`, { system_channel_id: '12345' });
    expect(badChannel.body.code).toBe(50035);
    const notMember = await api(stack, owner, 'PATCH', `/guilds/${guild.id}`, { owner_id: '12345' });
    expect(notMember.body.code).toBe(10007);

    const transferred = await api(stack, owner, 'PATCH', `/guilds/${guild.id}`, { owner_id: other.userId });
    expect(transferred.body.owner_id).toBe(other.userId);
    // The old owner is now an ordinary member without MANAGE_GUILD.
    const after = await api(stack, owner, 'PATCH', `/guilds/${guild.id}`, { name: 'mine again' });
    expect(after.body.code).toBe(50013);
  });

  it('when a guild is deleted, then only the owner may, and GUILD_DELETE goes to the guild', async () => {
    const guild = await createGuild(stack, owner);
    await join(stack, guild.id, other);
    const denied = await api(stack, other, 'DELETE', `/guilds/${guild.id}`);
    expect(denied.body.code).toBe(50013);
    const deleted = await api(stack, owner, 'POST', `/guilds/${guild.id}/delete`, {});
    expect(deleted.status).toBe(204);
    const [event] = await outboxEvents(stack, 'GUILD_DELETE', (e) => e.data.id === guild.id);
    expect(event!.audience).toEqual({ guilds: [guild.id] });
    expect((await api(stack, owner, 'GET', `/guilds/${guild.id}`)).body.code).toBe(10004);
    expect((await api(stack, owner, 'DELETE', `/guilds/${guild.id}`)).body.code).toBe(10004);
  });
});

describe('/users/@me/guilds', () => {
  it('when a user lists their guilds, then partial guilds with owner and permissions come back, paged by id', async () => {
    const user = await newUser(stack);
    const a = await createGuild(stack, user, 'first');
    const b = await createGuild(stack, user, 'second');
    const theirs = await createGuild(stack, owner, 'third');
    await join(stack, theirs.id, user);

    const all = await api(stack, user, 'GET', '/users/@me/guilds?with_counts=true');
    expect(all.status).toBe(200);
    expect(all.body.map((g: { id: string }) => g.id)).toEqual([a.id, b.id, theirs.id]);
    expect(all.body[0]).toMatchObject({ id: a.id, name: 'first', owner: true, features: [], approximate_member_count: 1 });
    expect(all.body[2]).toMatchObject({ owner: false, permissions: theirs.roles[0].permissions });

    const page = await api(stack, user, 'GET', `/users/@me/guilds?after=${a.id}&limit=1`);
    expect(page.body.map((g: { id: string }) => g.id)).toEqual([b.id]);
    const before = await api(stack, user, 'GET', `/users/@me/guilds?before=${theirs.id}&limit=1`);
    expect(before.body.map((g: { id: string }) => g.id)).toEqual([b.id]);
    const bad = await api(stack, user, 'GET', '/users/@me/guilds?limit=201');
    expect(bad.body.code).toBe(50035);
  });

  it('when a member leaves, then the guild hears GUILD_MEMBER_REMOVE and the user GUILD_DELETE; when the owner tries, then 50055', async () => {
    const guild = await createGuild(stack, owner);
    const user = await newUser(stack);
    await join(stack, guild.id, user);
    const left = await api(stack, user, 'DELETE', `/users/@me/guilds/${guild.id}`);
    expect(left.status).toBe(204);
    const [removed] = await outboxEvents(stack, 'GUILD_MEMBER_REMOVE', (e) => e.data.guild_id === guild.id);
    expect(removed!.audience).toEqual({ guilds: [guild.id] });
    expect(removed!.data.user.id).toBe(user.userId);
    const [gone] = await outboxEvents(stack, 'GUILD_DELETE', (e) => e.data.id === guild.id);
    expect(gone!.audience).toEqual({ users: [user.userId] });

    expect((await api(stack, user, 'DELETE', `/users/@me/guilds/${guild.id}`)).body.code).toBe(10004);
    const ownerLeaves = await api(stack, owner, 'DELETE', `/users/@me/guilds/${guild.id}`);
    expect(ownerLeaves.status).toBe(400);
    expect(ownerLeaves.body.code).toBe(50055);
  });
});
