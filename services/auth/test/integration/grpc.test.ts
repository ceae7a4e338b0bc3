import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthHarness } from './auth.harness.js';

let auth: AuthHarness;

beforeAll(async () => {
  auth = await AuthHarness.start();
});

afterAll(async () => {
  await auth?.close();
});

describe('AuthService.ValidateToken', () => {
  it('when the token is live, then valid with its user, session, flags and bot', async () => {
    const account = await auth.register();
    const answer = await auth.grpc.validateToken({ token: account.token, clientIp: '127.0.0.1' });
    expect(answer).toMatchObject({
      valid: true,
      userId: account.userId,
      sessionId: expect.stringMatching(/^[0-9a-f]{32}$/),
      flags: '0',
      bot: false,
    });
  });

  it('when the token is empty, unknown, garbage or huge, then not valid and nothing else', async () => {
    const account = await auth.register();
    const [prefix, secret] = account.token.split('.') as [string, string];
    const notTokens = ['', 'garbage', `${prefix}.${secret.slice(0, -2)}AA`, `${account.token} `, 'x'.repeat(100_000), '\u0000\u00ff'];
    for (const token of notTokens) {
      expect(await auth.grpc.validateToken({ token }), token.slice(0, 20)).toMatchObject({
        valid: false,
        userId: '',
        sessionId: '',
        flags: '',
      });
    }
  });
});

describe('AuthService.GetUsers', () => {
  it('when ids are known, then their partial users; unknown, non-numeric and out-of-range ids are left out', async () => {
    const a = await auth.register({ global_name: 'Ada' });
    const b = await auth.register();
    const { users } = await auth.grpc.getUsers({
      userIds: [a.userId, 'abc', '', '1', b.userId, a.userId, '99999999999999999999', '-5', `${a.userId}x`],
    });
    expect(users.map((u) => u.id).sort()).toEqual([a.userId, b.userId].sort());
    const ada = users.find((u) => u.id === a.userId)!;
    expect(ada).toMatchObject({ username: a.username, discriminator: '0', globalName: 'Ada', publicFlags: 0n, bot: false });
    expect(ada.avatar).toBeUndefined();
    expect(users.find((u) => u.id === b.userId)!.globalName).toBeUndefined();
  });

  it('when no ids are given, then no users', async () => {
    expect((await auth.grpc.getUsers({ userIds: [] })).users).toEqual([]);
  });
});

describe('session touch', () => {
  let eager: AuthHarness;

  beforeAll(async () => {
    eager = await AuthHarness.start({ SESSION_TOUCH_INTERVAL_MS: 0 });
  });

  afterAll(async () => {
    await eager?.close();
  });

  it('when the touch interval is 0, then ValidateToken moves approx_last_used_time forward', async () => {
    const account = await eager.register();
    const [before] = await eager.sessions(account.identity);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await eager.grpc.validateToken({ token: account.token, clientIp: '8.8.8.8' })).valid).toBe(true);
    const [after] = await eager.sessions(account.identity);
    expect(after!.id_hash).toBe(before!.id_hash);
    expect(Date.parse(after!.approx_last_used_time)).toBeGreaterThan(Date.parse(before!.approx_last_used_time));
  });

  it('when the default interval has not passed, then ValidateToken leaves approx_last_used_time alone', async () => {
    const account = await auth.register();
    const [before] = await auth.sessions(account.identity);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await auth.grpc.validateToken({ token: account.token });
    const [after] = await auth.sessions(account.identity);
    expect(after!.approx_last_used_time).toBe(before!.approx_last_used_time);
  });
});

describe('AuthService.CreateBotUser', () => {
  it('when two applications share a name, then each gets a bot user of that name with its own discriminator, found by id and never by name', async () => {
    const first = (await auth.grpc.createBotUser({ username: 'Shared Name' })).user!;
    const second = (await auth.grpc.createBotUser({ username: 'shared name' })).user!;
    expect(first).toMatchObject({ username: 'Shared Name', bot: true });
    expect(second).toMatchObject({ username: 'shared name', bot: true });
    expect(first.id).not.toBe(second.id);
    expect(first.discriminator).toMatch(/^\d{4}$/);
    const { users } = await auth.grpc.getUsers({ userIds: [first.id, second.id] });
    expect(users.map((u) => u.bot)).toEqual([true, true]);
    expect((await auth.grpc.findUserByUsername({ username: 'Shared Name', discriminator: '' })).user).toBeUndefined();
  });

  it('when a person has the name already, then the bot still gets it, and the person keeps theirs', async () => {
    const person = await auth.register();
    const bot = (await auth.grpc.createBotUser({ username: person.username })).user!;
    expect(bot).toMatchObject({ username: person.username, bot: true });
    expect((await auth.grpc.findUserByUsername({ username: person.username, discriminator: '' })).user?.id).toBe(person.userId);
  });
});

describe('AuthService.ResetBotToken', () => {
  it('when a bot’s token is reset, then the new token validates as the bot and the previous one no longer does', async () => {
    const bot = (await auth.grpc.createBotUser({ username: 'Token Bot' })).user!;
    const first = (await auth.grpc.resetBotToken({ userId: bot.id })).token;
    expect(await auth.grpc.validateToken({ token: first })).toMatchObject({ valid: true, userId: bot.id, bot: true });
    const second = (await auth.grpc.resetBotToken({ userId: bot.id })).token;
    expect(second).not.toBe(first);
    expect((await auth.grpc.validateToken({ token: first })).valid).toBe(false);
    expect(await auth.grpc.validateToken({ token: second })).toMatchObject({ valid: true, userId: bot.id, bot: true });
  });

  it('when many resets race, then exactly one of the tokens they answered is live', async () => {
    const bot = (await auth.grpc.createBotUser({ username: 'Racing Bot' })).user!;
    const tokens = await Promise.all(Array.from({ length: 8 }, () => auth.grpc.resetBotToken({ userId: bot.id })));
    const live = await Promise.all(tokens.map(({ token }) => auth.grpc.validateToken({ token })));
    expect(live.filter((v) => v.valid)).toHaveLength(1);
  });

  it('when the user is a person, unknown or not an id, then NOT_FOUND with 10013 and no token', async () => {
    const person = await auth.register();
    for (const userId of [person.userId, '1', 'abc', '']) {
      await expect(auth.grpc.resetBotToken({ userId }), userId).rejects.toMatchObject({ status: 404, body: { code: 10013 } });
    }
    // The person's own token still works: nothing of theirs was revoked.
    expect((await auth.grpc.validateToken({ token: person.token })).valid).toBe(true);
  });
});
