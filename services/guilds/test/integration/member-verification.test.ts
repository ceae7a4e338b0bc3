import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Permission } from '../../src/domain/permissions.js';
import {
  api,
  createGuild,
  join,
  newUser,
  outboxEvents,
  sendRaw,
  startGuildsStack,
  stopGuildsStack,
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

const TERMS = { field_type: 'TERMS', label: 'Read and agree to the rules', values: ['Be kind'], required: true };

describe('member verification', () => {
  it('when the gate is switched on, then the form answers, the guild has the feature and its members hear GUILD_UPDATE', async () => {
    const guild = await createGuild(stack, owner);
    expect((await api(stack, owner, 'GET', `/guilds/${guild.id}/member-verification`)).body).toMatchObject({ code: 10068 });
    const on = await api(stack, owner, 'PATCH', `/guilds/${guild.id}/member-verification`, {
      enabled: true,
      form_fields: [TERMS],
      description: 'A guild about tests',
    });
    expect(on.status).toBe(200);
    expect(on.body).toEqual({
      version: expect.any(String),
      form_fields: [expect.objectContaining(TERMS)],
      description: 'A guild about tests',
    });
    expect((await api(stack, owner, 'GET', `/guilds/${guild.id}/member-verification`)).body).toEqual(on.body);
    expect((await api(stack, owner, 'GET', `/guilds/${guild.id}`)).body.features).toContain('MEMBER_VERIFICATION_GATE_ENABLED');
    const [update] = await outboxEvents(stack, 'GUILD_UPDATE', (e) => e.data.id === guild.id);
    expect(update!.data.features).toContain('MEMBER_VERIFICATION_GATE_ENABLED');

    const off = await api(stack, owner, 'PATCH', `/guilds/${guild.id}/member-verification`, { enabled: false });
    expect(off.body.form_fields).toHaveLength(1);
    expect((await api(stack, owner, 'GET', `/guilds/${guild.id}`)).body.features).not.toContain('MEMBER_VERIFICATION_GATE_ENABLED');
  });

  it('when someone without MANAGE_GUILD, a stranger or a bad body asks, then 50013, 50001 and 50035; bad JSON 50109', async () => {
    const guild = await createGuild(stack, owner);
    const member = await newUser(stack);
    await join(stack, guild.id, member);
    const stranger = await newUser(stack);
    const path = `/guilds/${guild.id}/member-verification`;
    expect((await api(stack, member, 'PATCH', path, { enabled: true })).body).toMatchObject({ code: 50013 });
    expect((await api(stack, stranger, 'PATCH', path, { enabled: true })).body).toMatchObject({ code: 50001 });
    expect((await api(stack, stranger, 'GET', path)).body).toMatchObject({ code: 50001 });
    const bad = await api(stack, owner, 'PATCH', path, { enabled: 'yes', form_fields: [{ ...TERMS, field_type: 'ESSAY' }] });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 50035, errors: { enabled: expect.anything(), form_fields: expect.anything() } });
    const tooMany = await api(stack, owner, 'PATCH', path, { form_fields: Array.from({ length: 6 }, () => TERMS) });
    expect(tooMany.body).toMatchObject({ code: 50035, errors: { form_fields: expect.anything() } });
    expect((await sendRaw(stack, owner, 'PATCH', path, '{"enabled": tru')).body).toMatchObject({ code: 50109 });
    expect((await api(stack, owner, 'GET', `/guilds/${guild.id}`)).body.features).not.toContain('MEMBER_VERIFICATION_GATE_ENABLED');
  });

  it('when a user joins a gated guild, then they are pending and their join request starts (GUILD_JOIN_REQUEST_CREATE to them alone)', async () => {
    const guild = await createGuild(stack, owner);
    await api(stack, owner, 'PATCH', `/guilds/${guild.id}/member-verification`, { enabled: true, form_fields: [TERMS] });
    const user = await newUser(stack);
    const added = await stack.grpc.addMember({ guildId: guild.id, userId: user.userId });
    expect(added).toMatchObject({ errorCode: 0, alreadyMember: false, member: { pending: true } });
    expect(added.guild!.members[0]).toMatchObject({ pending: true });
    const [request] = await outboxEvents(stack, 'GUILD_JOIN_REQUEST_CREATE', (e) => e.data.guild_id === guild.id);
    expect(request!.audience).toEqual({ users: [user.userId] });
    expect(request!.data).toEqual({
      guild_id: guild.id,
      status: 'STARTED',
      request: expect.objectContaining({ guild_id: guild.id, user_id: user.userId, application_status: 'STARTED', rejection_reason: null }),
    });
    expect(request!.data.request.id).toBe(request!.data.request.join_request_id);
    const [add] = await outboxEvents(stack, 'GUILD_MEMBER_ADD', (e) => e.data.guild_id === guild.id);
    expect(add!.data.pending).toBe(true);
    const listed = await api(stack, owner, 'GET', `/guilds/${guild.id}/members/${user.userId}`);
    expect(listed.body.pending).toBe(true);
    // Asking again answers the membership as it is: still pending, no second request.
    expect(await stack.grpc.addMember({ guildId: guild.id, userId: user.userId })).toMatchObject({
      alreadyMember: true,
      member: { pending: true },
    });
    expect(await outboxEvents(stack, 'GUILD_JOIN_REQUEST_CREATE', (e) => e.data.guild_id === guild.id)).toHaveLength(1);
  });

  it('when a join bypasses verification, or the gate is off, then the member is not pending and no join request starts', async () => {
    const gated = await createGuild(stack, owner);
    await api(stack, owner, 'PATCH', `/guilds/${gated.id}/member-verification`, { enabled: true });
    const open = await createGuild(stack, owner);
    const user = await newUser(stack);
    const bypass = await stack.grpc.addMember({ guildId: gated.id, userId: user.userId, bypassVerification: true });
    expect(bypass).toMatchObject({ errorCode: 0, member: { pending: false } });
    expect((await stack.grpc.addMember({ guildId: open.id, userId: user.userId })).member!.pending).toBe(false);
    const requests = await outboxEvents(
      stack,
      'GUILD_JOIN_REQUEST_CREATE',
      (e) => e.data.guild_id === gated.id || e.data.guild_id === open.id,
    );
    expect(requests).toEqual([]);
  });

  it('when a member is pending, then they may only view and read history (checks over gRPC, nickname over HTTP) until the gate lets them in', async () => {
    const guild = await createGuild(stack, owner);
    await api(stack, owner, 'PATCH', `/guilds/${guild.id}/member-verification`, { enabled: true, form_fields: [TERMS] });
    const channelId = ((await api(stack, owner, 'GET', `/guilds/${guild.id}/channels`)).body as { id: string }[])[0]!.id;
    const pending = await newUser(stack);
    const passed = await newUser(stack);
    expect((await stack.grpc.addMember({ guildId: guild.id, userId: pending.userId })).member!.pending).toBe(true);
    expect((await stack.grpc.addMember({ guildId: guild.id, userId: passed.userId, bypassVerification: true })).member!.pending).toBe(
      false,
    );
    const check = (userId: string, required: bigint, channel = channelId) =>
      stack.grpc.checkPermissions({ userId, guildId: guild.id, channelId: channel, required: required.toString() });

    const looking = await check(pending.userId, Permission.VIEW_CHANNEL | Permission.READ_MESSAGE_HISTORY);
    expect(looking).toMatchObject({ member: true, allowed: true });
    expect(BigInt(looking.permissions)).toBe(Permission.VIEW_CHANNEL | Permission.READ_MESSAGE_HISTORY);
    for (const bit of [Permission.SEND_MESSAGES, Permission.ADD_REACTIONS, Permission.CONNECT, Permission.CREATE_INSTANT_INVITE]) {
      expect(await check(pending.userId, bit)).toMatchObject({ member: true, allowed: false });
      expect(await check(passed.userId, bit)).toMatchObject({ member: true, allowed: true });
    }
    // The guild-level answer is cut the same way.
    expect(BigInt((await check(pending.userId, 0n, '')).permissions)).toBe(Permission.VIEW_CHANNEL | Permission.READ_MESSAGE_HISTORY);
    // Over HTTP: @everyone's CHANGE_NICKNAME is not theirs yet.
    const nick = await api(stack, pending, 'PATCH', `/guilds/${guild.id}/members/@me`, { nick: 'early' });
    expect(nick).toMatchObject({ status: 403, body: { code: 50013 } });
    expect((await api(stack, passed, 'PATCH', `/guilds/${guild.id}/members/@me`, { nick: 'in' })).status).toBe(200);

    // Past the gate, the next check answers with everything @everyone has (nothing cached the restriction).
    await stack.db
      .updateTable('members')
      .set({ pending: false })
      .where('guild_id', '=', guild.id)
      .where('user_id', '=', pending.userId)
      .execute();
    expect(await check(pending.userId, Permission.SEND_MESSAGES | Permission.ADD_REACTIONS)).toMatchObject({ allowed: true });
  });

  it('when a pending member submits a TERMS-only form (PUT /requests/@me), then the request is APPROVED, they are no longer pending and may take part', async () => {
    const guild = await createGuild(stack, owner);
    await api(stack, owner, 'PATCH', `/guilds/${guild.id}/member-verification`, { enabled: true, form_fields: [TERMS] });
    const channelId = ((await api(stack, owner, 'GET', `/guilds/${guild.id}/channels`)).body as { id: string }[])[0]!.id;
    const user = await newUser(stack);
    await stack.grpc.addMember({ guildId: guild.id, userId: user.userId });
    const path = `/guilds/${guild.id}/requests/@me`;
    const statusOf = async () =>
      (
        await stack.db
          .selectFrom('guild_join_requests')
          .select('status')
          .where('guild_id', '=', guild.id)
          .where('user_id', '=', user.userId)
          .executeTakeFirstOrThrow()
      ).status;

    // Refusals change nothing: the wrong number of fields, an unanswered required one, a field not of the form, broken JSON.
    expect(await api(stack, user, 'PUT', path, { form_fields: [] })).toMatchObject({
      status: 400,
      body: { code: 50035, errors: { form_fields: {} } },
    });
    const unanswered = await api(stack, user, 'PUT', path, { form_fields: [{ ...TERMS, response: false }] });
    expect(unanswered).toMatchObject({
      status: 400,
      body: { code: 50035, errors: { form_fields: { 0: { response: { _errors: [{ code: 'BASE_TYPE_REQUIRED' }] } } } } },
    });
    const foreign = await api(stack, user, 'PUT', path, { form_fields: [{ ...TERMS, label: 'Something else', response: true }] });
    expect(foreign).toMatchObject({ status: 400, body: { code: 50035 } });
    expect((await sendRaw(stack, user, 'PUT', path, '{"form_fields": [')).body).toMatchObject({ code: 50109 });
    expect(await statusOf()).toBe('STARTED');
    expect(await outboxEvents(stack, 'GUILD_JOIN_REQUEST_UPDATE', (e) => e.data.guild_id === guild.id)).toEqual([]);

    const submitted = await api(stack, user, 'PUT', path, { form_fields: [{ ...TERMS, response: true }], version: null });
    expect(submitted).toMatchObject({ status: 200, body: { guild_id: guild.id, user_id: user.userId, application_status: 'APPROVED' } });
    expect(await statusOf()).toBe('APPROVED');
    const [update] = await outboxEvents(stack, 'GUILD_JOIN_REQUEST_UPDATE', (e) => e.data.guild_id === guild.id);
    expect(update).toMatchObject({ audience: { users: [user.userId] }, data: { status: 'APPROVED', request: { id: submitted.body.id } } });
    const [memberUpdate] = await outboxEvents(
      stack,
      'GUILD_MEMBER_UPDATE',
      (e) => e.data.guild_id === guild.id && e.data.user.id === user.userId,
    );
    expect(memberUpdate).toMatchObject({ audience: { guilds: [guild.id] }, data: { pending: false } });
    const check = await stack.grpc.checkPermissions({
      userId: user.userId,
      guildId: guild.id,
      channelId,
      required: Permission.SEND_MESSAGES.toString(),
    });
    expect(check).toMatchObject({ member: true, allowed: true });

    // Again: the decided request as it is, nothing new heard.
    expect((await api(stack, user, 'PUT', path, { form_fields: [{ ...TERMS, response: true }] })).body).toMatchObject({
      application_status: 'APPROVED',
    });
    expect(await outboxEvents(stack, 'GUILD_JOIN_REQUEST_UPDATE', (e) => e.data.guild_id === guild.id)).toHaveLength(1);
  });

  it('when the form asks more than TERMS, then the request waits SUBMITTED and the member stays pending; a stranger or an ungated guild is refused', async () => {
    const question = { field_type: 'TEXT_INPUT', label: 'Why join?', required: true };
    const guild = await createGuild(stack, owner);
    await api(stack, owner, 'PATCH', `/guilds/${guild.id}/member-verification`, { enabled: true, form_fields: [TERMS, question] });
    const user = await newUser(stack);
    await stack.grpc.addMember({ guildId: guild.id, userId: user.userId });
    const path = `/guilds/${guild.id}/requests/@me`;
    const blank = await api(stack, user, 'PUT', path, {
      form_fields: [
        { ...TERMS, response: true },
        { ...question, response: '  ' },
      ],
    });
    expect(blank).toMatchObject({ status: 400, body: { code: 50035, errors: { form_fields: { 1: { response: {} } } } } });
    const submitted = await api(stack, user, 'PUT', path, {
      form_fields: [
        { ...TERMS, response: true },
        { ...question, response: 'to test' },
      ],
    });
    expect(submitted).toMatchObject({ status: 200, body: { application_status: 'SUBMITTED' } });
    expect((await stack.grpc.getMember({ guildId: guild.id, userId: user.userId })).member!.pending).toBe(true);
    expect(await outboxEvents(stack, 'GUILD_MEMBER_UPDATE', (e) => e.data.guild_id === guild.id)).toEqual([]);
    const [update] = await outboxEvents(stack, 'GUILD_JOIN_REQUEST_UPDATE', (e) => e.data.guild_id === guild.id);
    expect(update!.data).toMatchObject({ status: 'SUBMITTED' });

    const stranger = await newUser(stack);
    expect(await api(stack, stranger, 'PUT', path, { form_fields: [] })).toMatchObject({ status: 404, body: { code: 10004 } });
    const open = await createGuild(stack, owner);
    expect(await api(stack, owner, 'PUT', `/guilds/${open.id}/requests/@me`, { form_fields: [] })).toMatchObject({
      status: 404,
      body: { code: 10068 },
    });
  });
});
