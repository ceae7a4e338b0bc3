import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelView, guildCreateView, guildView } from '@kith/platform';
import type { GuildCreate } from '@kith/proto/guilds/v1/guilds';
import { ChannelType } from '../../src/domain/records.js';
import { Permission } from '../../src/domain/permissions.js';
import {
  api,
  createGuild,
  join,
  newUser,
  outboxEvents,
  startGuildsStack,
  stopGuildsStack,
  testIds,
  type Body,
  type GuildsStack,
  type GuildsUser,
} from './harness.js';

let stack: GuildsStack;
let owner: GuildsUser;
let joiner: GuildsUser;

beforeAll(async () => {
  stack = await startGuildsStack();
  [owner, joiner] = await Promise.all([newUser(stack), newUser(stack)]);
});
afterAll(() => stopGuildsStack(stack));

describe('GetGuild and GetMember', () => {
  it('when GetGuild and GetMember are asked, then the typed guild (rendering as GET /guilds/{id} does) and the member come back', async () => {
    const guild = await createGuild(stack, owner, 'grpc guild');
    const found = await stack.grpc.getGuild({ guildId: guild.id });
    expect(found.found).toBe(true);
    expect(found.guild).toMatchObject({ id: guild.id, name: 'grpc guild', ownerId: owner.userId, approximateMemberCount: 1, icon: '' });
    expect(found.guild!.roles).toEqual([expect.objectContaining({ id: guild.id, name: '@everyone', position: 0 })]);
    expect(guildView(found.guild!)).toEqual((await api(stack, owner, 'GET', `/guilds/${guild.id}`)).body);
    expect((await stack.grpc.getGuild({ guildId: '1234' })).found).toBe(false);

    const member = await stack.grpc.getMember({ guildId: guild.id, userId: owner.userId });
    expect(member.found).toBe(true);
    expect(member.member).toMatchObject({ userId: owner.userId, roleIds: [], temporary: false });
    expect((await stack.grpc.getMember({ guildId: guild.id, userId: joiner.userId })).found).toBe(false);
    await expect(stack.grpc.getMember({ guildId: 'nope', userId: owner.userId })).rejects.toMatchObject({ body: { code: 50035 } });
  });
});

describe('AddMember', () => {
  it('when AddMember joins a user, then roles and flags apply, GUILD_CREATE goes to them and GUILD_MEMBER_ADD to the guild', async () => {
    const guild = await createGuild(stack, owner);
    const role = (await api(stack, owner, 'POST', `/guilds/${guild.id}/roles`, { name: 'invited' })).body;
    const user = await newUser(stack);
    const added = await stack.grpc.addMember({ guildId: guild.id, userId: user.userId, roleIds: [role.id, '1234'], temporary: true });
    expect(added.errorCode).toBe(0);
    expect(added.alreadyMember).toBe(false);
    expect(added.member).toMatchObject({ userId: user.userId, roleIds: [role.id], temporary: true });
    expect(added.guild).toMatchObject({ guild: { id: guild.id, approximateMemberCount: 2 }, threads: [], joinedAt: expect.any(String) });
    expect(added.guild!.channels.map((c) => c.name)).toEqual(['general']);

    const [create] = await outboxEvents(stack, 'GUILD_CREATE', (e) => e.data.id === guild.id && e.audience.users?.[0] === user.userId);
    expect(create!.data.members[0].user.id).toBe(user.userId);
    // The event carries exactly the platform's rendering of what AddMember answered.
    expect(create!.data).toEqual(guildCreateView(added.guild as GuildCreate & { guild: NonNullable<GuildCreate['guild']> }));
    expect(create!.data).toMatchObject({ id: guild.id, member_count: 2, threads: [], joined_at: expect.any(String) });
    const [add] = await outboxEvents(stack, 'GUILD_MEMBER_ADD', (e) => e.data.guild_id === guild.id);
    expect(add!.audience).toEqual({ guilds: [guild.id] });
    expect(add!.data.user.id).toBe(user.userId);

    const again = await stack.grpc.addMember({ guildId: guild.id, userId: user.userId });
    expect(again).toMatchObject({ errorCode: 0, alreadyMember: true });
    expect(await outboxEvents(stack, 'GUILD_MEMBER_ADD', (e) => e.data.guild_id === guild.id)).toHaveLength(1);
    expect((await stack.grpc.addMember({ guildId: '1234', userId: user.userId })).errorCode).toBe(10004);

    // omit_guild: the same join, without the GUILD_CREATE in the answer (the member still hears it).
    const quiet = await newUser(stack);
    const omitted = await stack.grpc.addMember({ guildId: guild.id, userId: quiet.userId, omitGuild: true });
    expect(omitted).toMatchObject({ errorCode: 0, alreadyMember: false, member: { userId: quiet.userId } });
    expect(omitted.guild).toBeUndefined();
    expect(await outboxEvents(stack, 'GUILD_CREATE', (e) => e.data.id === guild.id && e.audience.users?.[0] === quiet.userId)).toHaveLength(
      1,
    );
  });

  it("when a guild hides a channel from @everyone, then the joining member's GUILD_CREATE leaves it out", async () => {
    const guild = await createGuild(stack, owner);
    const secretId = testIds.next();
    await stack.db
      .insertInto('channels')
      .values({ id: secretId, type: ChannelType.GUILD_TEXT, guild_id: guild.id, name: 'secret', topic: null })
      .execute();
    await stack.db
      .insertInto('permission_overwrites')
      .values({ channel_id: secretId, target_id: guild.id, type: 0, allow: '0', deny: Permission.VIEW_CHANNEL.toString() })
      .execute();
    const user = await newUser(stack);
    const added = await stack.grpc.addMember({ guildId: guild.id, userId: user.userId });
    expect(added.guild!.channels.map((c) => c.name)).toEqual(['general']);
    const ready = await stack.grpc.getReadyState({ userId: owner.userId });
    const mine = ready.guilds.find((g) => g.guild?.id === guild.id)!;
    expect(mine.channels.map((c) => c.name).sort()).toEqual(['general', 'secret']);
    const secret = mine.channels.find((c) => c.name === 'secret')!;
    expect(secret.permissionOverwrites).toEqual([
      expect.objectContaining({ id: guild.id, type: 0, allow: '0', deny: Permission.VIEW_CHANNEL.toString() }),
    ]);
  });
});

describe('RemoveMember, ListGuildMemberIds, ListMutualGuildIds', () => {
  it('when RemoveMember and ListGuildMemberIds are asked, then members go (never the owner) and ids page in order', async () => {
    const guild = await createGuild(stack, owner);
    const users = await Promise.all([newUser(stack), newUser(stack), newUser(stack)]);
    for (const u of users) await join(stack, guild.id, u);
    const all = [owner, ...users].map((u) => u.userId).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
    const first = await stack.grpc.listGuildMemberIds({ guildId: guild.id, limit: 2 });
    expect(first.userIds).toEqual(all.slice(0, 2));
    const rest = await stack.grpc.listGuildMemberIds({ guildId: guild.id, after: first.userIds[1]!, limit: 10 });
    expect(rest.userIds).toEqual(all.slice(2));

    expect((await stack.grpc.removeMember({ guildId: guild.id, userId: users[0]!.userId })).removed).toBe(true);
    expect((await stack.grpc.removeMember({ guildId: guild.id, userId: users[0]!.userId })).removed).toBe(false);
    expect((await stack.grpc.removeMember({ guildId: guild.id, userId: owner.userId })).removed).toBe(false);
    const [removed] = await outboxEvents(stack, 'GUILD_MEMBER_REMOVE', (e) => e.data.guild_id === guild.id);
    expect(removed!.data.user.id).toBe(users[0]!.userId);
    expect((await stack.grpc.getGuild({ guildId: guild.id })).guild!.approximateMemberCount).toBe(3);
  });

  it('when two users share guilds, then ListMutualGuildIds names exactly those', async () => {
    const a = await newUser(stack);
    const b = await newUser(stack);
    const shared = await createGuild(stack, a);
    await createGuild(stack, a);
    await join(stack, shared.id, b);
    expect((await stack.grpc.listMutualGuildIds({ userId: a.userId, otherUserId: b.userId })).guildIds).toEqual([shared.id]);
    expect((await stack.grpc.listMutualGuildIds({ userId: a.userId, otherUserId: owner.userId })).guildIds).toEqual([]);
  });
});

describe('GetReadyState', () => {
  it("when READY state is asked, then the user's guilds come as GUILD_CREATE renders them and their DMs without themselves", async () => {
    const user = await newUser(stack);
    const friend = await newUser(stack);
    const guild = await createGuild(stack, user, 'ready guild');
    const dmId = (await api(stack, user, 'POST', '/users/@me/channels', { recipient_id: friend.userId })).body.id as string;
    const ready = await stack.grpc.getReadyState({ userId: user.userId });
    expect(ready.guildIds).toEqual([guild.id]);
    const [readyGuild] = ready.guilds.map((g) => guildCreateView({ ...g, guild: g.guild! }));
    expect(readyGuild).toMatchObject({ id: guild.id, name: 'ready guild', member_count: 1, threads: [], roles: [expect.any(Object)] });
    expect((readyGuild!.members as Body[])[0]!.user.id).toBe(user.userId);
    // Every participant travels; the rendering for the user leaves them out.
    expect(ready.privateChannels.map((c) => [c.id, [...c.recipientIds].sort()])).toEqual([[dmId, [user.userId, friend.userId].sort()]]);
    const channels = ready.privateChannels.map((c) => channelView(c, user.userId));
    expect(channels).toEqual([
      expect.objectContaining({ id: dmId, type: ChannelType.DM, recipients: [expect.objectContaining({ id: friend.userId })] }),
    ]);

    // The friend's READY renders exactly what their GET /users/@me/channels answers.
    const friendReady = (await stack.grpc.getReadyState({ userId: friend.userId })).privateChannels.map((c) =>
      channelView(c, friend.userId),
    );
    expect(friendReady).toEqual((await api(stack, friend, 'GET', '/users/@me/channels')).body);
    expect((friendReady[0]!.recipients as Body[]).map((u) => u.id)).toEqual([user.userId]);

    const nobody = await stack.grpc.getReadyState({ userId: '1234' });
    expect(nobody).toMatchObject({ guildIds: [], guilds: [], privateChannels: [] });
  });

  it('when the user closes a DM, then READY leaves it out as their channel list does; reopening brings it back', async () => {
    const [user, friend] = await Promise.all([newUser(stack), newUser(stack)]);
    const dmId = (await api(stack, user, 'POST', '/users/@me/channels', { recipient_id: friend.userId })).body.id as string;
    const readyChannels = async () =>
      (await stack.grpc.getReadyState({ userId: user.userId })).privateChannels.map((c) => channelView(c, user.userId));
    expect((await readyChannels()).map((c: Body) => c.id)).toEqual([dmId]);

    expect((await api(stack, user, 'DELETE', `/channels/${dmId}`)).status).toBe(200);
    expect(await readyChannels()).toEqual([]);
    expect((await api(stack, user, 'GET', '/users/@me/channels')).body).toEqual([]);

    expect((await api(stack, user, 'POST', '/users/@me/channels', { recipient_id: friend.userId })).body.id).toBe(dmId);
    const reopened = await readyChannels();
    expect(reopened).toEqual((await api(stack, user, 'GET', '/users/@me/channels')).body);
    expect(reopened).toEqual([expect.objectContaining({ id: dmId, recipients: [expect.objectContaining({ id: friend.userId })] })]);
  });
});

describe('CreateManagedRole', () => {
  it('when a create for the same bot or integration comes again (a retry after a lost answer), then it answers the role it made, with the permissions now asked, and makes no other', async () => {
    const guild = await createGuild(stack, owner);
    const botId = testIds.next();
    const made = await Promise.all(
      Array.from({ length: 4 }, () =>
        stack.grpc.createManagedRole({ guildId: guild.id, name: 'Bot', permissions: '2048', botId, integrationId: '' }),
      ),
    );
    expect(made.map((m) => m.errorCode)).toEqual([0, 0, 0, 0]);
    expect(new Set(made.map((m) => m.role!.id)).size).toBe(1);
    const botRole = made[0]!.role!.id;

    const again = await stack.grpc.createManagedRole({ guildId: guild.id, name: 'Bot', permissions: '2', botId, integrationId: '' });
    expect(again.role).toMatchObject({ id: botRole, permissions: '2' });
    const [update] = await outboxEvents(stack, 'GUILD_ROLE_UPDATE', (e) => e.data.role.id === botRole);
    expect(update?.data.role.permissions).toBe('2');

    const integrationId = testIds.next();
    const subscriber = await stack.grpc.createManagedRole({ guildId: guild.id, name: 'Subs', permissions: '', botId: '', integrationId });
    const subscriberAgain = await stack.grpc.createManagedRole({
      guildId: guild.id,
      name: 'Subs',
      permissions: '',
      botId: '',
      integrationId,
    });
    expect(subscriberAgain.role!.id).toBe(subscriber.role!.id);
    expect(subscriber.role!.id).not.toBe(botRole);

    const roles = (await api(stack, owner, 'GET', `/guilds/${guild.id}/roles`)).body as Body[];
    expect(
      roles
        .filter((r) => r.managed)
        .map((r) => r.id)
        .sort(),
    ).toEqual([botRole, subscriber.role!.id].sort());
  });
});
