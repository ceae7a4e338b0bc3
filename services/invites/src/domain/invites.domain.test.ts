import { beforeEach, describe, expect, it } from 'vitest';
import { ApiError, createLogger } from '@kith/platform';
import { FakeGuilds, FakeSocial, FakeUsers, MemoryInviteStore, MemoryTargetStore } from '../../test/fakes/world.js';
import { TargetUsersService } from './target-users.service.js';
import { TargetUsersWorker } from './target-users.worker.js';
import { FriendInvitesService } from './friend-invites.service.js';
import { InviteAcceptor } from './invite.accept.js';
import { InviteCreator } from './invite.create.js';
import { InviteRenderer } from './invite.renderer.js';
import { Permission } from './invite.types.js';
import { InvitesService } from './invites.service.js';

const ALL = (1n << 41n) - 1n;
const VIEW_AND_INVITE = Permission.VIEW_CHANNEL | Permission.CREATE_INSTANT_INVITE;

let store: MemoryInviteStore;
let guilds: FakeGuilds;
let creator: InviteCreator;
let acceptor: InviteAcceptor;
let invites: InvitesService;
let embedded: Set<string>;
let social: FakeSocial;
let friends: FriendInvitesService;
let targetStore: MemoryTargetStore;
let targets: TargetUsersService;
let worker: TargetUsersWorker;
let kicks = 0;

beforeEach(() => {
  store = new MemoryInviteStore();
  guilds = new FakeGuilds();
  embedded = new Set();
  social = new FakeSocial();
  const users = new FakeUsers();
  const render = new InviteRenderer(guilds, users);
  targetStore = new MemoryTargetStore();
  store.targetStore = targetStore;
  targets = new TargetUsersService(store, targetStore, guilds, { kick: () => kicks++ });
  worker = new TargetUsersWorker(targetStore, users, { idleMs: 10, logger: createLogger('test', 'silent') });
  creator = new InviteCreator(store, guilds, users, { isEmbedded: async (id) => embedded.has(id) }, targets);
  acceptor = new InviteAcceptor(store, guilds, render, social, targets);
  invites = new InvitesService(store, guilds, render, social, targets);
  friends = new FriendInvitesService(store, social, guilds, render);
  guilds.addGuild('10', '20', '1');
  guilds.perms.set('1', ALL);
});

const codeOf = async (p: Promise<unknown>) => ((await p.catch((e: unknown) => e)) as ApiError).body?.code;

describe('creating invites', () => {
  it('when nothing is given, then the defaults hold and INVITE_CREATE goes to the channel managers', async () => {
    guilds.managers = ['1'];
    const { invite } = await creator.create('1', '20', {});
    expect(invite).toMatchObject({ type: 0, max_age: 86400, max_uses: 0, temporary: false, flags: 0, guild_id: '10' });
    expect(store.events).toEqual([expect.objectContaining({ name: 'INVITE_CREATE', audience: { users: ['1'] } })]);
  });

  it('when a member lacks CREATE_INSTANT_INVITE, the bypass flag lacks KICK_MEMBERS, a stranger asks or the channel is unknown, then 50013, 50001 and 10003', async () => {
    guilds.members.get('10')!.add('2');
    guilds.perms.set('2', Permission.VIEW_CHANNEL);
    expect(await codeOf(creator.create('2', '20', {}))).toBe(50013);
    guilds.perms.set('2', VIEW_AND_INVITE);
    expect(await codeOf(creator.create('2', '20', { flags: 8 }))).toBe(50013);
    expect(await codeOf(creator.create('3', '20', {}))).toBe(50001);
    expect(await codeOf(creator.create('2', '99', {}))).toBe(10003);
  });

  it('when flags other than guest and bypass, a guest invite to a text channel, or an unknown target, then 50035', async () => {
    expect(await codeOf(creator.create('1', '20', { flags: 2 }))).toBe(50035);
    expect(await codeOf(creator.create('1', '20', { flags: 1 }))).toBe(50035);
    expect(await codeOf(creator.create('1', '20', { target_type: 2, target_application_id: '5' }))).toBe(50035);
    embedded.add('5');
    const { invite } = await creator.create('1', '20', { target_type: 2, target_application_id: '5' });
    expect(invite.target_application_id).toBe('5');
  });

  it('when the guild already has 1000 live invites, then 30016', async () => {
    for (let i = 0; i < 1000; i++) await creator.create('1', '20', { unique: true });
    expect(await codeOf(creator.create('1', '20', { unique: true }))).toBe(30016);
  });

  it('when a group DM invite is made, then only max_age counts and it must be 1 to 604800', async () => {
    guilds.channels.set('30', { id: '30', type: 3, guildId: '', recipientIds: ['1', '2'], recipients: [], name: '' } as never);
    const { invite } = await creator.create('1', '30', { max_uses: 7, temporary: true, max_age: 60 });
    expect(invite).toMatchObject({ type: 1, max_uses: 0, temporary: false, max_age: 60, guild_id: null });
    expect(store.events).toEqual([]);
    expect(await codeOf(creator.create('1', '30', { max_age: 0 }))).toBe(50035);
    expect(await codeOf(creator.create('1', '30', { max_age: 604801 }))).toBe(50035);
    expect(await codeOf(creator.create('3', '30', {}))).toBe(50001);
  });
});

describe('accepting invites', () => {
  it('when more accept than max_uses allows, at once, then exactly max_uses join and the rest get 10006', async () => {
    const { invite } = await creator.create('1', '20', { max_uses: 2 });
    const results = await Promise.all(['2', '3', '4', '5'].map((u) => codeOf(acceptor.accept(u, invite.code, {})).catch(() => 'x')));
    expect(results.filter((r) => r === undefined)).toHaveLength(2);
    expect(results.filter((r) => r === 10006)).toHaveLength(2);
    expect(guilds.members.get('10')!.size).toBe(3);
    expect(await store.get(invite.code)).toBeUndefined();
    expect(store.events.map((e) => e.name)).toEqual(['INVITE_CREATE', 'INVITE_DELETE']);
  });

  it('when a member accepts again or a banned user accepts, then no use is counted', async () => {
    const { invite } = await creator.create('1', '20', { max_uses: 1 });
    const again = await acceptor.accept('1', invite.code, {});
    expect(again.new_member).toBe(false);
    guilds.bans.add('9');
    expect(await codeOf(acceptor.accept('9', invite.code, {}))).toBe(40007);
    expect(store.rows.get(invite.code)).toMatchObject({ uses: 0, pending: 0 });
    expect((await acceptor.accept('2', invite.code, {})).new_member).toBe(true);
  });

  it('when an invite has expired, then reading and accepting it are 10006', async () => {
    const { invite } = await creator.create('1', '20', { max_age: 60 });
    store.now += 61_000;
    expect(await codeOf(invites.get(invite.code, { withCounts: false, withPermissions: false }))).toBe(10006);
    expect(await codeOf(acceptor.accept('2', invite.code, {}))).toBe(10006);
  });

  it('when a guest invite is accepted without a session, then 50035', async () => {
    guilds.addGuild('11', '21', '1', 2);
    const { invite } = await creator.create('1', '21', { flags: 1 });
    expect(await codeOf(acceptor.accept('2', invite.code, {}))).toBe(50035);
    expect((await acceptor.accept('2', invite.code, { sessionId: 's' })).new_member).toBe(true);
  });
});

describe('deleting and listing', () => {
  it('when someone without MANAGE_CHANNELS or MANAGE_GUILD deletes, then 50013; with MANAGE_GUILD alone it is deleted', async () => {
    const { invite } = await creator.create('1', '20', {});
    guilds.members.get('10')!.add('2');
    guilds.perms.set('2', Permission.VIEW_CHANNEL);
    expect(await codeOf(invites.delete('2', invite.code))).toBe(50013);
    guilds.perms.set('2', Permission.MANAGE_GUILD);
    expect((await invites.delete('2', invite.code)).code).toBe(invite.code);
    expect(await codeOf(invites.delete('2', invite.code))).toBe(10006);
  });

  it('when a member has VIEW_AUDIT_LOG only, then the guild list has no metadata; invites of target types 3–5 never show', async () => {
    await creator.create('1', '20', {});
    const { invite: hidden } = await creator.create('1', '20', { unique: true });
    store.rows.get(hidden.code)!.target_type = 3;
    guilds.members.get('10')!.add('2');
    guilds.perms.set('2', Permission.VIEW_AUDIT_LOG);
    const list = await invites.listGuild('2', '10');
    expect(list).toHaveLength(1);
    expect(list[0]).not.toHaveProperty('uses');
    expect((await invites.listGuild('1', '10'))[0]).toHaveProperty('uses', 0);
    expect(await codeOf(invites.delete('1', hidden.code))).toBe(50013);
  });
});

describe('friend invites', () => {
  it('when a friend invite is made, then it lasts a week for five uses; a taken or malformed code is 50020', async () => {
    const made = await friends.create('1', 'Friendly1');
    expect(made).toMatchObject({ type: 2, code: 'Friendly1', channel: null, max_age: 604800, max_uses: 5, uses: 0 });
    expect(made).not.toHaveProperty('guild_id');
    expect(await codeOf(friends.create('2', 'Friendly1'))).toBe(50020);
    expect(await codeOf(friends.create('2', 'bad code!'))).toBe(50020);
    expect((await friends.list('1')).map((i) => i.code)).toEqual(['Friendly1']);
  });

  it('when a friend invite is accepted, then social befriends them; already friends counts no use; blocked is hidden', async () => {
    await friends.create('1', 'Friendly2');
    expect((await acceptor.accept('2', 'Friendly2', {})).new_member).toBe(true);
    expect(social.friends.has('1:2')).toBe(true);
    expect((await acceptor.accept('2', 'Friendly2', {})).new_member).toBe(false);
    expect(store.rows.get('Friendly2')!.uses).toBe(1);
    expect(await codeOf(acceptor.accept('1', 'Friendly2', {}))).toBe(80003);
    social.blocked.add('1:3');
    expect(await codeOf(invites.get('Friendly2', { withCounts: false, withPermissions: false }, '3'))).toBe(10006);
    expect((await invites.get('Friendly2', { withCounts: false, withPermissions: false }, null)).code).toBe('Friendly2');
  });

  it('when all friend invites are revoked, then they come back and are gone', async () => {
    await friends.create('1', 'Friendly3');
    await friends.create('1', 'Friendly4');
    expect((await friends.revokeAll('1')).map((i) => i.code).sort()).toEqual(['Friendly3', 'Friendly4']);
    expect(await friends.list('1')).toEqual([]);
    expect(await codeOf(friends.create('1', 'Friendly3'))).toBe(50020);
  });

  it('when friend members are asked, then only friends in the invite guild come back, and none for other invites', async () => {
    const { invite } = await creator.create('1', '20', {});
    guilds.members.get('10')!.add('5');
    social.friends.add('4:5').add('4:6');
    expect(await friends.friendMembers('4', invite)).toEqual(['5']);
    await friends.create('1', 'Friendly5');
    expect(await friends.friendMembers('4', (await store.get('Friendly5'))!)).toEqual([]);
  });
});

describe('target users files', () => {
  it('when an invite is made with a file, then only its users (and the inviter) see and accept it once the job completes', async () => {
    const { invite } = await creator.create('1', '20', { target_users_file: ['2', '3'] });
    expect(kicks).toBeGreaterThan(0);
    expect(await codeOf(acceptor.accept('2', invite.code, {}))).toBe(10006);
    expect(await worker.runOnce()).toBe(true);
    expect(await targets.jobStatus('1', invite.code)).toMatchObject({ status: 2, total_users: 2, processed_users: 2, error_message: null });
    expect(await codeOf(invites.get(invite.code, { withCounts: false, withPermissions: false }, '4'))).toBe(10006);
    expect(await codeOf(invites.get(invite.code, { withCounts: false, withPermissions: false }, null))).toBe(10006);
    expect((await invites.get(invite.code, { withCounts: false, withPermissions: false }, '1')).code).toBe(invite.code);
    expect(await codeOf(acceptor.accept('4', invite.code, {}))).toBe(10006);
    expect((await acceptor.accept('3', invite.code, {})).new_member).toBe(true);
    expect(await targets.csv('1', invite.code)).toBe('user_id\n2\n3\n');
    const listed = await invites.listGuild('1', '10');
    expect(listed.find((i) => i.code === invite.code)).toHaveProperty('target_users_job_status.status', 2);
  });

  it('when rows are not ids, or users are unknown, then the job fails saying which', async () => {
    const users = new FakeUsers();
    users.known = new Set(['2']);
    const strict = new TargetUsersWorker(targetStore, users, { idleMs: 10, logger: createLogger('test', 'silent') });
    const { invite: bad } = await creator.create('1', '20', { target_users_file: ['2', 'abc', ''] });
    await strict.runOnce();
    expect(await targets.jobStatus('1', bad.code)).toMatchObject({ status: 3, error_message: 'Invalid user IDs on lines: 3, 4' });
    const { invite: unknown } = await creator.create('1', '20', { target_users_file: ['2', '77'], unique: true });
    await strict.runOnce();
    expect(await targets.jobStatus('1', unknown.code)).toMatchObject({ status: 3, error_message: 'Unknown users: 77', processed_users: 2 });
    await targets.replace('1', unknown.code, ['2']);
    expect(await targets.jobStatus('1', unknown.code)).toMatchObject({ status: 1, total_users: 1 });
    await strict.runOnce();
    expect(await targets.jobStatus('1', unknown.code)).toMatchObject({ status: 2 });
  });

  it('when someone other than the inviter reads or replaces the file, then the permission rules hold', async () => {
    const { invite } = await creator.create('1', '20', { target_users_file: ['2'] });
    guilds.members.get('10')!.add('5');
    guilds.perms.set('5', Permission.VIEW_AUDIT_LOG);
    expect(await targets.csv('5', invite.code)).toBe('user_id\n2\n');
    expect(await codeOf(targets.replace('5', invite.code, ['2']))).toBe(50013);
    guilds.perms.set('5', 0n);
    expect(await codeOf(targets.jobStatus('5', invite.code))).toBe(50013);
    const { invite: plain } = await creator.create('1', '20', {});
    expect(await codeOf(targets.csv('1', plain.code))).toBe(10006);
    expect(await codeOf(targets.replace('1', plain.code, ['2']))).toBe(10006);
  });
});
