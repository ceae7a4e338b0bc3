import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Permission } from '../../src/domain/permissions.js';
import { ChannelSystem, EVERYONE_DEFAULT, type User } from './channels.fixtures.js';

let sys: ChannelSystem;
let owner: User;
let member: User;
let modder: User;
let outsider: User;

beforeAll(async () => {
  sys = await ChannelSystem.start();
  [owner, member, modder, outsider] = await Promise.all([sys.user(), sys.user(), sys.user(), sys.user()]);
});
afterAll(() => sys?.stop());

const VIEW = Permission.VIEW_CHANNEL.toString();

async function textChannel(guildId: string, body: Record<string, unknown> = {}) {
  const res = await sys.call(owner, `/guilds/${guildId}/channels`, { json: { name: 'general', ...body } });
  expect(res.status).toBe(201);
  return res.body as { id: string; name: string; [k: string]: unknown };
}

describe('POST /guilds/{id}/channels', () => {
  it('when the owner creates a text channel, then it is answered with a normalised name and announced to the guild', async () => {
    const guildId = await sys.guild(owner, [member]);
    const channel = await textChannel(guildId, { name: 'Hello World', topic: 't' });
    expect(channel).toMatchObject({
      type: 0,
      guild_id: guildId,
      name: 'hello-world',
      topic: 't',
      parent_id: null,
      permission_overwrites: [],
    });
    const event = await sys.event((e) => e.name === 'CHANNEL_CREATE' && e.data.id === channel.id);
    expect(event.audience).toEqual({ guilds: [guildId] });
    const list = await sys.call(member, `/guilds/${guildId}/channels`);
    expect(list.body.map((c: { id: string }) => c.id)).toContain(channel.id);
  });

  it('when the channel is private to a role, then only the owner and the role hear of it and only they list it', async () => {
    const guildId = await sys.guild(owner, [member, modder]);
    const roleId = await sys.role(owner, guildId, 0n, [modder]);
    const channel = await textChannel(guildId, {
      name: 'staff',
      permission_overwrites: [
        { id: guildId, type: 0, deny: VIEW },
        { id: roleId, type: 0, allow: VIEW },
      ],
    });
    const event = await sys.event((e) => e.name === 'CHANNEL_CREATE' && e.data.id === channel.id);
    expect(event.audience).toEqual({ users: [owner.id, modder.id].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1)) });
    const seen = await sys.call(member, `/guilds/${guildId}/channels`);
    expect(seen.body.map((c: { id: string }) => c.id)).not.toContain(channel.id);
    expect((await sys.call(member, `/channels/${channel.id}`)).body.code).toBe(50001);
    expect((await sys.call(modder, `/channels/${channel.id}`)).status).toBe(200);
  });

  it('when the caller lacks MANAGE_CHANNELS, is not a member, or is signed out, then 50013, 50001 and 401', async () => {
    const guildId = await sys.guild(owner, [member]);
    const json = { name: 'x' };
    expect((await sys.call(member, `/guilds/${guildId}/channels`, { json })).body.code).toBe(50013);
    const outside = await sys.call(outsider, `/guilds/${guildId}/channels`, { json });
    expect([outside.status, outside.body.code]).toEqual([403, 50001]);
    expect((await sys.call(outsider, `/guilds/${guildId}/channels`)).body.code).toBe(50001);
    expect((await sys.call(null, `/guilds/${guildId}/channels`, { json })).status).toBe(401);
  });

  it('when the body is invalid, then 50035 names the fields; broken JSON is 50109', async () => {
    const guildId = await sys.guild(owner);
    const bad = await sys.call(owner, `/guilds/${guildId}/channels`, {
      json: { name: '', type: 1, permission_overwrites: [{ id: 'x', type: 3 }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe(50035);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['name', 'permission_overwrites', 'type']);
    const broken = await sys.raw(owner, 'POST', `/guilds/${guildId}/channels`, '{"name":');
    expect([broken.status, broken.body.code]).toEqual([400, 50109]);
  });

  it('when ids overflow, text holds NUL, positions overflow or a target repeats, then 50035 (or the last overwrite counts), never a 500', async () => {
    const guildId = await sys.guild(owner, [member]);
    const huge = '18446744073709551615';
    expect((await sys.call(owner, `/channels/${huge}`)).body.code).toBe(50035);
    expect((await sys.call(owner, `/guilds/${huge}/channels`)).body.code).toBe(50035);
    const post = (json: unknown) => sys.call(owner, `/guilds/${guildId}/channels`, { json });
    expect((await post({ name: 'a', parent_id: huge })).body.errors.parent_id).toBeDefined();
    expect((await post({ name: 'a\u0000b' })).body.errors.name._errors[0].code).toBe('BASE_TYPE_INVALID');
    expect((await post({ name: 'a', position: 2 ** 40 })).body.errors.position).toBeDefined();
    const twice = await post({
      name: 'a',
      permission_overwrites: [
        { id: member.id, type: 1, deny: VIEW },
        { id: member.id, type: 1, allow: VIEW },
      ],
    });
    expect(twice.body.permission_overwrites).toEqual([{ id: member.id, type: 1, allow: VIEW, deny: '0' }]);
  });

  it('when the parent is not a category of the guild, then 50035 on parent_id', async () => {
    const guildId = await sys.guild(owner);
    const text = await textChannel(guildId);
    const res = await sys.call(owner, `/guilds/${guildId}/channels`, { json: { name: 'child', parent_id: text.id } });
    expect(res.body.errors.parent_id._errors[0].code).toBe('CHANNEL_PARENT_INVALID_TYPE');
  });

  it('when a member with MANAGE_CHANNELS grants a permission they do not hold, then 50013', async () => {
    const guildId = await sys.guild(owner, [member]);
    await sys.role(owner, guildId, Permission.MANAGE_CHANNELS, [member]);
    const json = { name: 'x', permission_overwrites: [{ id: guildId, type: 0, allow: Permission.BAN_MEMBERS.toString() }] };
    expect((await sys.call(member, `/guilds/${guildId}/channels`, { json })).body.code).toBe(50013);
    const ok = await sys.call(member, `/guilds/${guildId}/channels`, {
      json: { name: 'x', permission_overwrites: [{ id: guildId, type: 0, deny: VIEW }] },
    });
    expect(ok.status).toBe(201);
  });

  it('when a category holds 50 channels, then a 51st is refused with 50035', async () => {
    const guildId = await sys.guild(owner);
    const category = await textChannel(guildId, { name: 'Cat', type: 4 });
    await seedChannels(guildId, 50, category.id);
    const res = await sys.call(owner, `/guilds/${guildId}/channels`, { json: { name: 'one-more', parent_id: category.id } });
    expect(res.body.errors.parent_id._errors[0].code).toBe('CHANNEL_PARENT_MAX_CHANNELS');
  });

  it('when two channels move into a category with one place left at once, then one gets it', async () => {
    const guildId = await sys.guild(owner);
    const category = await textChannel(guildId, { name: 'Cat', type: 4 });
    await seedChannels(guildId, 49, category.id);
    const [x, y] = [await textChannel(guildId, { name: 'x' }), await textChannel(guildId, { name: 'y' })];
    const moves = await Promise.all(
      [x, y].map((c) => sys.call(owner, `/channels/${c.id}`, { method: 'PATCH', json: { parent_id: category.id } })),
    );
    expect(moves.map((m) => m.status).sort()).toEqual([200, 400]);
  });

  it('when creates race at the 500-channel limit, then exactly the room left is used and the rest get 30013', async () => {
    const guildId = await sys.guild(owner);
    // The guild starts with #general: 496 more leave room for three.
    await seedChannels(guildId, 496, null);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => sys.call(owner, `/guilds/${guildId}/channels`, { json: { name: `c${i}` } })),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(3);
    expect(answers.filter((a) => a.body.code === 30013)).toHaveLength(3);
  });
});

describe('PATCH and DELETE /channels/{id}', () => {
  it('when a channel becomes private, then the update reaches members who lose sight of it too', async () => {
    const guildId = await sys.guild(owner, [member]);
    const channel = await textChannel(guildId);
    const res = await sys.call(owner, `/channels/${channel.id}`, {
      method: 'PATCH',
      json: { name: 'Secret Room', permission_overwrites: [{ id: guildId, type: 0, deny: VIEW }] },
    });
    expect(res.body).toMatchObject({ name: 'secret-room', permission_overwrites: [{ id: guildId, type: 0, allow: '0', deny: VIEW }] });
    const event = await sys.event((e) => e.name === 'CHANNEL_UPDATE' && e.data.id === channel.id);
    expect(event.audience.users).toEqual(expect.arrayContaining([owner.id, member.id]));
    expect((await sys.call(member, `/channels/${channel.id}`)).body.code).toBe(50001);
  });

  it('when a moderator edits a channel sending back an overwrite they could not grant, then it stands; a new such grant is 50013', async () => {
    const guildId = await sys.guild(owner, [member]);
    await sys.role(owner, guildId, Permission.MANAGE_CHANNELS | Permission.MANAGE_ROLES, [member]);
    // Set by the owner: the moderator lacks BAN_MEMBERS, so could not have written it.
    const adminOnly = { id: guildId, type: 0, allow: '0', deny: Permission.BAN_MEMBERS.toString() };
    const channel = await textChannel(guildId, { permission_overwrites: [adminOnly] });
    const kept = await sys.call(member, `/channels/${channel.id}`, {
      method: 'PATCH',
      json: { topic: 'new', permission_overwrites: [adminOnly] },
    });
    expect(kept.body).toMatchObject({ topic: 'new', permission_overwrites: [adminOnly] });
    const grant = { id: member.id, type: 1, allow: Permission.KICK_MEMBERS.toString(), deny: '0' };
    const refused = await sys.call(member, `/channels/${channel.id}`, {
      method: 'PATCH',
      json: { permission_overwrites: [adminOnly, grant] },
    });
    expect(refused.body.code).toBe(50013);
  });

  it('when channels move with lock_permissions, then they take the overwrites of the category', async () => {
    const guildId = await sys.guild(owner, [member]);
    const hidden = { id: guildId, type: 0, allow: '0', deny: VIEW };
    const category = await textChannel(guildId, { name: 'Cat', type: 4, permission_overwrites: [hidden] });
    const channel = await textChannel(guildId);
    const res = await sys.call(owner, `/guilds/${guildId}/channels`, {
      method: 'PATCH',
      json: [{ id: channel.id, parent_id: category.id, lock_permissions: true }],
    });
    expect(res.status).toBe(204);
    expect((await sys.call(owner, `/channels/${channel.id}`)).body.permission_overwrites).toEqual([hidden]);
    expect((await sys.call(member, `/channels/${channel.id}`)).body.code).toBe(50001);
  });

  it('when a member without MANAGE_CHANNELS edits or deletes, then 50013; an outsider gets 50001, an unknown channel 10003', async () => {
    const guildId = await sys.guild(owner, [member]);
    const channel = await textChannel(guildId);
    expect((await sys.call(member, `/channels/${channel.id}`, { method: 'PATCH', json: { name: 'x' } })).body.code).toBe(50013);
    expect((await sys.call(member, `/channels/${channel.id}`, { method: 'DELETE' })).body.code).toBe(50013);
    expect((await sys.call(outsider, `/channels/${channel.id}`)).body.code).toBe(50001);
    expect((await sys.call(owner, `/channels/${channel.id}`, { method: 'PATCH', json: { rate_limit_per_user: -1 } })).body.code).toBe(
      50035,
    );
    expect((await sys.call(owner, `/channels/123`)).body.code).toBe(10003);
  });

  it('when the owner deletes a channel, then it is answered, announced and gone', async () => {
    const guildId = await sys.guild(owner, [member]);
    const channel = await textChannel(guildId);
    const res = await sys.call(owner, `/channels/${channel.id}`, { method: 'DELETE' });
    expect(res.body).toMatchObject({ id: channel.id, name: 'general' });
    const event = await sys.event((e) => e.name === 'CHANNEL_DELETE' && e.data.id === channel.id);
    expect(event.audience).toEqual({ guilds: [guildId] });
    expect((await sys.call(owner, `/channels/${channel.id}`)).status).toBe(404);
  });

  it('when a category is deleted, then its channels stay without a category and clients hear they moved', async () => {
    const guildId = await sys.guild(owner, [member]);
    const category = await textChannel(guildId, { name: 'Cat', type: 4 });
    const child = await textChannel(guildId, { name: 'kid', parent_id: category.id });
    expect((await sys.call(owner, `/channels/${category.id}`, { method: 'DELETE' })).status).toBe(200);
    const moved = await sys.event((e) => e.name === 'CHANNEL_UPDATE' && e.data.id === child.id);
    expect(moved.data.parent_id).toBeNull();
    expect((await sys.call(member, `/channels/${child.id}`)).body.parent_id).toBeNull();
  });

  it('when a name is only spaces or a topic too long, then 50035 on that field', async () => {
    const guildId = await sys.guild(owner);
    const blank = await sys.call(owner, `/guilds/${guildId}/channels`, { json: { name: '   ' } });
    expect(blank.body.errors.name._errors[0].code).toBe('BASE_TYPE_BAD_LENGTH');
    const channel = await textChannel(guildId);
    const long = await sys.call(owner, `/channels/${channel.id}`, { method: 'PATCH', json: { topic: 'x'.repeat(1025) } });
    expect(long.body.errors.topic._errors[0].code).toBe('BASE_TYPE_BAD_LENGTH');
  });

  it('when channels are moved into a category, then their parent and position change', async () => {
    const guildId = await sys.guild(owner, [member]);
    const category = await textChannel(guildId, { name: 'Cat', type: 4 });
    const channel = await textChannel(guildId);
    const res = await sys.call(owner, `/guilds/${guildId}/channels`, {
      method: 'PATCH',
      json: [{ id: channel.id, position: 7, parent_id: category.id }],
    });
    expect(res.status).toBe(204);
    expect((await sys.call(owner, `/channels/${channel.id}`)).body).toMatchObject({ parent_id: category.id, position: 7 });
    const wrong = await sys.call(owner, `/guilds/${guildId}/channels`, { method: 'PATCH', json: [{ id: '1', position: 1 }] });
    expect(wrong.body.errors['0'].id._errors[0].code).toBe('CHANNEL_INVALID');
    expect(
      (await sys.call(member, `/guilds/${guildId}/channels`, { method: 'PATCH', json: [{ id: channel.id, position: 1 }] })).body.code,
    ).toBe(50013);
  });
});

describe('permission overwrites', () => {
  it('when a member overwrite denies VIEW_CHANNEL and is then removed, then the member loses and regains the channel', async () => {
    const guildId = await sys.guild(owner, [member]);
    const channel = await textChannel(guildId);
    const put = await sys.call(owner, `/channels/${channel.id}/permissions/${member.id}`, { method: 'PUT', json: { type: 1, deny: VIEW } });
    expect(put.status).toBe(204);
    expect((await sys.call(member, `/channels/${channel.id}`)).body.code).toBe(50001);
    const update = await sys.event((e) => e.name === 'CHANNEL_UPDATE' && e.data.id === channel.id);
    expect(update.audience.users).toContain(member.id);
    expect((await sys.call(owner, `/channels/${channel.id}/permissions/${member.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await sys.call(member, `/channels/${channel.id}`)).status).toBe(200);
  });

  it('when a role overwrite allows what @everyone lacks, then the role holder gets it', async () => {
    const guildId = await sys.guild(owner, [member, modder], EVERYONE_DEFAULT & ~Permission.VIEW_CHANNEL);
    const roleId = await sys.role(owner, guildId, 0n, [modder]);
    const channel = await textChannel(guildId);
    expect((await sys.call(modder, `/channels/${channel.id}`)).status).toBe(403);
    await sys.call(owner, `/channels/${channel.id}/permissions/${roleId}`, { method: 'PUT', json: { type: 0, allow: VIEW } });
    expect((await sys.call(modder, `/channels/${channel.id}`)).status).toBe(200);
    expect((await sys.call(member, `/channels/${channel.id}`)).status).toBe(403);
  });

  it('when the target is unknown, the caller lacks MANAGE_ROLES, or the body is bad, then 10011, 10007, 50013 and 50035', async () => {
    const guildId = await sys.guild(owner, [member]);
    const channel = await textChannel(guildId);
    const path = (id: string) => `/channels/${channel.id}/permissions/${id}`;
    expect((await sys.call(owner, path('42'), { method: 'PUT', json: { type: 0 } })).body.code).toBe(10011);
    expect((await sys.call(owner, path(outsider.id), { method: 'PUT', json: { type: 1 } })).body.code).toBe(10007);
    expect((await sys.call(member, path(member.id), { method: 'PUT', json: { type: 1, allow: VIEW } })).body.code).toBe(50013);
    expect((await sys.call(owner, path(member.id), { method: 'PUT', json: { type: 5, allow: 'lots' } })).body.code).toBe(50035);
    expect((await sys.call(member, path(member.id), { method: 'DELETE' })).body.code).toBe(50013);
  });
});

describe('threads', () => {
  it('when a public thread is started, then it carries thread metadata and is announced to who sees the parent', async () => {
    const guildId = await sys.guild(owner, [member]);
    const channel = await textChannel(guildId);
    const res = await sys.call(member, `/channels/${channel.id}/threads`, { json: { name: 'Topic', type: 11, auto_archive_duration: 60 } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ type: 11, parent_id: channel.id, owner_id: member.id, name: 'Topic' });
    expect(res.body.thread_metadata).toMatchObject({ archived: false, locked: false, auto_archive_duration: 60 });
    expect(typeof res.body.thread_metadata.create_timestamp).toBe('string');
    const event = await sys.event((e) => e.name === 'THREAD_CREATE' && e.data.id === res.body.id);
    expect(event.audience).toEqual({ guilds: [guildId] });
    expect(event.data.newly_created).toBe(true);
    const active = await sys.call(member, `/guilds/${guildId}/threads/active`);
    expect(active.body.threads.map((t: { id: string }) => t.id)).toContain(res.body.id);
  });

  it('when a private thread is started, then only its creator and moderators see it or hear of it', async () => {
    const guildId = await sys.guild(owner, [member, modder]);
    const channel = await textChannel(guildId);
    const thread = (await sys.call(member, `/channels/${channel.id}/threads`, { json: { name: 'secret', type: 12 } })).body;
    expect(thread).toMatchObject({ type: 12, thread_metadata: { invitable: true } });
    const event = await sys.event((e) => e.name === 'THREAD_CREATE' && e.data.id === thread.id);
    expect([...event.audience.users!].sort()).toEqual([owner.id, member.id].sort());
    expect((await sys.call(modder, `/channels/${thread.id}`)).body.code).toBe(50001);
    expect((await sys.call(owner, `/channels/${thread.id}`)).status).toBe(200);
    expect((await sys.call(modder, `/guilds/${guildId}/threads/active`)).body.threads).toEqual([]);
    expect((await sys.call(member, `/guilds/${guildId}/threads/active`)).body.threads.map((t: { id: string }) => t.id)).toEqual([
      thread.id,
    ]);
    const viewers = await sys.grpc.listChannelViewerIds({ channelId: thread.id, after: '', limit: 10 });
    expect([...viewers.userIds].sort()).toEqual([owner.id, member.id].sort());
    expect(viewers.wholeGuild).toBe(false);
    // Its parent every member sees: an event of it may go to the guild.
    const parent = await sys.grpc.listChannelViewerIds({ channelId: channel.id, after: '', limit: 10 });
    expect(parent.wholeGuild).toBe(true);
    expect([...parent.userIds].sort()).toEqual([owner.id, member.id, modder.id].sort());
  });

  it('when viewers are asked for with a required permission, then only those who also hold it there are listed', async () => {
    const guildId = await sys.guild(owner, [member, modder]);
    const roleId = await sys.role(owner, guildId, Permission.MANAGE_CHANNELS, [modder]);
    const channel = await textChannel(guildId);
    const required = Permission.MANAGE_CHANNELS.toString();
    const managers = await sys.grpc.listChannelViewerIds({ channelId: channel.id, after: '', limit: 10, required });
    expect([...managers.userIds].sort()).toEqual([owner.id, modder.id].sort());
    expect(managers.wholeGuild).toBe(false);
    await sys.call(owner, `/channels/${channel.id}/permissions/${roleId}`, { method: 'PUT', json: { type: 0, deny: required } });
    const after = await sys.grpc.listChannelViewerIds({ channelId: channel.id, after: '', limit: 10, required });
    expect(after.userIds).toEqual([owner.id]);
    await expect(sys.grpc.listChannelViewerIds({ channelId: channel.id, after: '', limit: 10, required: 'x' })).rejects.toThrow();
  });

  it('when the parent is hidden from a member, then its threads are hidden too', async () => {
    const guildId = await sys.guild(owner, [member]);
    const channel = await textChannel(guildId);
    const thread = await sys.call(owner, `/channels/${channel.id}/threads`, { json: { name: 'T', type: 11 } });
    await sys.call(owner, `/channels/${channel.id}/permissions/${member.id}`, { method: 'PUT', json: { type: 1, deny: VIEW } });
    expect((await sys.call(member, `/channels/${thread.body.id}`)).body.code).toBe(50001);
    const active = await sys.call(member, `/guilds/${guildId}/threads/active`);
    expect(active.body.threads).toEqual([]);
  });

  it('when members lack the thread permissions or the body is wrong, then 50013, 50035 and 50024', async () => {
    const guildId = await sys.guild(owner, [member], Permission.VIEW_CHANNEL);
    const channel = await textChannel(guildId);
    const voice = await textChannel(guildId, { name: 'Voice', type: 2 });
    expect((await sys.call(member, `/channels/${channel.id}/threads`, { json: { name: 'T', type: 11 } })).body.code).toBe(50013);
    expect((await sys.call(member, `/channels/${channel.id}/threads`, { json: { name: 'T', type: 12 } })).body.code).toBe(50013);
    expect((await sys.call(owner, `/channels/${channel.id}/threads`, { json: { name: '', auto_archive_duration: 5 } })).body.code).toBe(
      50035,
    );
    expect((await sys.call(owner, `/channels/${voice.id}/threads`, { json: { name: 'T' } })).body.code).toBe(50024);
    expect((await sys.call(outsider, `/channels/${channel.id}/threads`, { json: { name: 'T' } })).body.code).toBe(50001);
  });

  it('when a thread is deleted, then MANAGE_THREADS is needed and THREAD_DELETE names it', async () => {
    const guildId = await sys.guild(owner, [member]);
    const channel = await textChannel(guildId);
    const thread = (await sys.call(member, `/channels/${channel.id}/threads`, { json: { name: 'T', type: 11 } })).body;
    expect((await sys.call(member, `/channels/${thread.id}`, { method: 'DELETE' })).body.code).toBe(50013);
    expect((await sys.call(owner, `/channels/${thread.id}`, { method: 'DELETE' })).body.id).toBe(thread.id);
    const event = await sys.event((e) => e.name === 'THREAD_DELETE' && e.data.id === thread.id);
    expect(event.data).toEqual({ id: thread.id, guild_id: guildId, parent_id: channel.id, type: 11 });
    expect((await sys.call(member, `/channels/${thread.id}`)).body.code).toBe(10003);
  });

  it('when a forum thread is started, then it needs a message and is public', async () => {
    const guildId = await sys.guild(owner, [member]);
    const forum = await textChannel(guildId, { name: 'Forum', type: 15 });
    const missing = await sys.call(member, `/channels/${forum.id}/threads`, { json: { name: 'Q' } });
    expect(missing.body.errors.message._errors[0].code).toBe('BASE_TYPE_REQUIRED');
    const ok = await sys.call(member, `/channels/${forum.id}/threads`, { json: { name: 'Q', message: { content: 'hi' } } });
    expect(ok.body).toMatchObject({ type: 11, parent_id: forum.id, applied_tags: [], total_message_sent: 0 });
  });

  it('when the owner archives their thread, then it is listed as archived; locking takes MANAGE_THREADS', async () => {
    const guildId = await sys.guild(owner, [member]);
    const channel = await textChannel(guildId);
    const thread = (await sys.call(member, `/channels/${channel.id}/threads`, { json: { name: 'T', type: 11 } })).body;
    expect((await sys.call(member, `/channels/${thread.id}`, { method: 'PATCH', json: { locked: true } })).body.code).toBe(50013);
    const archived = await sys.call(member, `/channels/${thread.id}`, { method: 'PATCH', json: { archived: true, name: 'Done' } });
    expect(archived.body).toMatchObject({ name: 'Done', thread_metadata: { archived: true } });
    expect((await sys.event((e) => e.name === 'THREAD_UPDATE' && e.data.id === thread.id)).audience).toEqual({ guilds: [guildId] });
    const list = await sys.call(member, `/channels/${channel.id}/threads/archived/public`);
    expect(list.body).toMatchObject({ has_more: false, members: [] });
    expect(list.body.threads.map((t: { id: string }) => t.id)).toEqual([thread.id]);
    expect((await sys.call(owner, `/channels/${thread.id}`, { method: 'PATCH', json: { locked: true } })).body.thread_metadata.locked).toBe(
      true,
    );
    const other = await sys.call(modder, `/channels/${channel.id}/threads/archived/public`);
    expect(other.body.code).toBe(50001);
  });
});

async function seedChannels(guildId: string, count: number, parentId: string | null): Promise<void> {
  const base = BigInt(Date.now()) * 4194304n;
  await sys.db
    .insertInto('channels')
    .values(
      Array.from({ length: count }, (_, i) => ({
        id: String(base + BigInt(i) * 7n + 3n),
        type: 0,
        guild_id: guildId,
        name: `s${i}`,
        parent_id: parentId,
      })),
    )
    .execute();
}
