import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createGuild, newUser, testIds, startGuildsStack, stopGuildsStack, type GuildsStack, type GuildsUser } from './harness.js';

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
    member_count: 1,
  }));
  await stack.db.insertInto('guilds').values(guilds).execute();
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
});
