import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Permission } from '../../src/domain/permissions.js';
import { sql } from '@kith/platform';
import {
  api,
  createGuild,
  newUser,
  testIds,
  startGuildsStack,
  stopGuildsStack,
  type Answer,
  type Body,
  type GuildsStack,
  type GuildsUser,
} from './harness.js';

let stack: GuildsStack;
let owner: GuildsUser;

beforeAll(async () => {
  stack = await startGuildsStack();
  owner = await newUser(stack);
});
afterAll(() => stopGuildsStack(stack));

/** Makes `user` a member of `count` guilds directly in the database: the cap is under test, not the setup. */
async function fillMemberships(user: GuildsUser, count: number): Promise<void> {
  const guilds = Array.from({ length: count }, (_, i) => ({
    id: testIds.next(),
    name: `filler ${i}`,
    owner_id: user.userId,
  }));
  await stack.db.insertInto('guilds').values(guilds).execute();
  await stack.db
    .insertInto('guild_member_counts')
    .values(guilds.map((g) => ({ guild_id: g.id, slot: 0, n: 1 })))
    .execute();
  await stack.db
    .insertInto('members')
    .values(guilds.map((g) => ({ guild_id: g.id, user_id: user.userId })))
    .execute();
}

const membershipsOf = async (user: GuildsUser): Promise<number> =>
  Number(
    (
      await stack.db
        .selectFrom('members')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('user_id', '=', user.userId)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('the 100-guild cap', () => {
  it('when a user at 97 guilds creates and joins ten at once, then exactly three succeed and the rest answer 30001', async () => {
    const user = await newUser(stack);
    await fillMemberships(user, 97);
    const targets = await Promise.all(Array.from({ length: 5 }, () => createGuild(stack, owner)));

    const creates = Array.from({ length: 5 }, (_, i) => api(stack, user, 'POST', '/guilds', { name: `race ${i}` }));
    const joins = targets.map((g) => stack.grpc.addMember({ guildId: g.id, userId: user.userId }));
    const [created, joined] = await Promise.all([Promise.all(creates), Promise.all(joins)]);

    const refusedCreates = created.filter((r) => r.status === 400);
    expect(refusedCreates.every((r) => r.body.code === 30001)).toBe(true);
    const accepted = created.filter((r) => r.status === 201).length + joined.filter((j) => j.errorCode === 0).length;
    expect(accepted).toBe(3);
    expect(refusedCreates.length + joined.filter((j) => j.errorCode === 30001).length).toBe(7);
    expect(await membershipsOf(user)).toBe(100);

    const more = await api(stack, user, 'POST', '/guilds', { name: 'one more' });
    expect(more.status).toBe(400);
    expect(more.body).toMatchObject({ code: 30001, message: 'Maximum number of guilds reached (100)' });
  });

  it('when many users join and leave at once, then member_count stays exact', async () => {
    const guild = await createGuild(stack, owner);
    const users = await Promise.all(Array.from({ length: 8 }, () => newUser(stack)));
    await Promise.all(users.map((u) => stack.grpc.addMember({ guildId: guild.id, userId: u.userId })));
    await Promise.all(users.slice(0, 3).map((u) => api(stack, u, 'DELETE', `/users/@me/guilds/${guild.id}`)));
    const counted = await api(stack, owner, 'GET', `/guilds/${guild.id}?with_counts=true`);
    expect(counted.body.approximate_member_count).toBe(6);
  });

  it('when a ban races a join, then the user ends outside the guild either way', async () => {
    const guild = await createGuild(stack, owner);
    const user = await newUser(stack);
    const [, joinedAnswer] = await Promise.all([
      api(stack, owner, 'PUT', `/guilds/${guild.id}/bans/${user.userId}`),
      stack.grpc.addMember({ guildId: guild.id, userId: user.userId }),
    ]);
    expect([0, 40007]).toContain(joinedAnswer.errorCode);
    expect((await stack.grpc.getMember({ guildId: guild.id, userId: user.userId })).found).toBe(false);
  });

  it('when ownership is handed to a member while they leave, then the guild still ends with an owner among its members', async () => {
    const guild = await createGuild(stack, owner);
    const heir = await newUser(stack);
    await stack.grpc.addMember({ guildId: guild.id, userId: heir.userId });
    const [transfer, leave] = await Promise.all([
      api(stack, owner, 'PATCH', `/guilds/${guild.id}`, { owner_id: heir.userId }),
      api(stack, heir, 'DELETE', `/users/@me/guilds/${guild.id}`),
    ]);
    // One of the two wins: the transfer (then the new owner cannot leave) or the leave (then there is no one to hand to).
    expect([transfer.status, leave.status].sort()).toEqual(transfer.status === 200 ? [200, 400] : [204, 404]);
    const found = await stack.grpc.getGuild({ guildId: guild.id });
    expect((await stack.grpc.getMember({ guildId: guild.id, userId: found.guild!.ownerId })).found).toBe(true);
  });
});

describe('role and overwrite changes of one guild at once', () => {
  it('when roles are edited, created and deleted while channel overwrites change, then none fails and no overwrite outlives its role', async () => {
    const guild = await createGuild(stack, owner);
    const role = async (name: string): Promise<string> =>
      (await api(stack, owner, 'POST', `/guilds/${guild.id}/roles`, { name, permissions: '0' })).body.id;
    const channel = async (name: string): Promise<string> =>
      (await api(stack, owner, 'POST', `/guilds/${guild.id}/channels`, { name })).body.id;
    const stable = [await role('stays 1'), await role('stays 2')];
    const doomed = [await role('goes 1'), await role('goes 2'), await role('goes 3')];
    const channels = [await channel('one'), await channel('two'), await channel('three')];
    const bits = (n: number) => (BigInt(1 << n) & ~1n).toString();

    const changes = [
      // Role changes: permission edits (the trigger bumps the guild row), deletes, creates, a reorder.
      ...[...stable, ...doomed].map((id, i) => api(stack, owner, 'PATCH', `/guilds/${guild.id}/roles/${id}`, { permissions: bits(i + 1) })),
      ...doomed.map((id) => api(stack, owner, 'DELETE', `/guilds/${guild.id}/roles/${id}`)),
      api(stack, owner, 'POST', `/guilds/${guild.id}/roles`, { name: 'new' }),
      api(stack, owner, 'PATCH', `/guilds/${guild.id}/roles`, [{ id: stable[0], position: 2 }]),
      // Overwrite changes (the trigger bumps each channel row): on the roles that stay and the ones going.
      ...channels.flatMap((c, i) =>
        [...stable, ...doomed].map((id) => api(stack, owner, 'PUT', `/channels/${c}/permissions/${id}`, { type: 0, allow: bits(i + 2) })),
      ),
      ...channels.map((c) => api(stack, owner, 'DELETE', `/channels/${c}/permissions/${stable[1]}`)),
      ...channels.map((c) =>
        api(stack, owner, 'PATCH', `/channels/${c}`, {
          permission_overwrites: [{ id: stable[0], type: 0, deny: Permission.SEND_MESSAGES.toString() }],
        }),
      ),
    ];
    const answers = await Promise.all(changes);

    for (const answer of answers) {
      // A deadlock or a broken statement would be a 500; an overwrite for a role already deleted is 10011.
      if (answer.status >= 300) expect({ status: answer.status, body: answer.body }).toMatchObject({ body: { code: 10011 } });
    }
    expect(answers.filter((a) => a.status < 300).length).toBeGreaterThan(channels.length * stable.length);
    const orphans = await stack.db
      .selectFrom('permission_overwrites as o')
      .innerJoin('channels as c', 'c.id', 'o.channel_id')
      .leftJoin('roles as r', 'r.id', 'o.target_id')
      .select('o.target_id')
      .where('c.guild_id', '=', guild.id)
      .where('o.type', '=', 0)
      .where('r.id', 'is', null)
      .execute();
    expect(orphans).toEqual([]);
    const left = await api(stack, owner, 'GET', `/guilds/${guild.id}/roles`);
    expect(left.body.map((r: { id: string }) => r.id)).not.toEqual(expect.arrayContaining([doomed[0]]));
  });

  it('when an overwrite for a role is written while the role is being deleted, then it waits for the guild row and answers 10011', async () => {
    const guild = await createGuild(stack, owner);
    const roleId: string = (await api(stack, owner, 'POST', `/guilds/${guild.id}/roles`, { name: 'going' })).body.id;
    const channelId: string = (await api(stack, owner, 'POST', `/guilds/${guild.id}/channels`, { name: 'room' })).body.id;
    let settled = false;
    let put: Promise<Answer<Body>> | undefined;
    await stack.db.transaction().execute(async (trx) => {
      // A role delete in progress, locking as roles.service does: the guild row first, then the role goes.
      await trx.selectFrom('guilds').select('id').where('id', '=', guild.id).forUpdate().execute();
      await trx.deleteFrom('roles').where('id', '=', roleId).execute();
      const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx);
      put = api(stack, owner, 'PUT', `/channels/${channelId}/permissions/${roleId}`, { type: 0, allow: '1024' });
      void put.finally(() => (settled = true));
      // The overwrite write must queue behind the role change instead of going ahead on the role it still sees.
      for (;;) {
        const { rows: waiting } = await sql<{ n: number }>`
          SELECT count(*)::int AS n FROM pg_stat_activity WHERE ${rows[0]!.pid}::int = ANY (pg_blocking_pids(pid))`.execute(stack.db);
        if (waiting[0]!.n > 0) break;
        expect(settled).toBe(false);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });
    expect((await put!).body.code).toBe(10011);
    const left = await stack.db.selectFrom('permission_overwrites').select('target_id').where('channel_id', '=', channelId).execute();
    expect(left).toEqual([]);
  });

  it('when users join with a role while it is deleted, then every join succeeds and nobody keeps the deleted role', async () => {
    const guild = await createGuild(stack, owner);
    const roleId: string = (await api(stack, owner, 'POST', `/guilds/${guild.id}/roles`, { name: 'joiners' })).body.id;
    const joiners = await Promise.all(Array.from({ length: 4 }, () => newUser(stack)));
    const [deleted, ...joins] = await Promise.all([
      api(stack, owner, 'DELETE', `/guilds/${guild.id}/roles/${roleId}`),
      ...joiners.map((u) => stack.grpc.addMember({ guildId: guild.id, userId: u.userId, roleIds: [roleId] })),
    ]);
    expect(deleted.status).toBe(204);
    expect(joins.map((j) => j.errorCode)).toEqual([0, 0, 0, 0]);
    const held = await stack.db.selectFrom('member_roles').select('user_id').where('role_id', '=', roleId).execute();
    expect(held).toEqual([]);
  });
});
