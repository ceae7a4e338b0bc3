import { describe, expect, it } from 'vitest';
import { MemoryUsers } from '../../test/fakes/users.fake.js';
import { BotTokens, BotUsers, botUsername } from './bots.service.js';
import { DuplicateBotTagError, type NewUser, type UserRow } from './ports.js';

const counter = () => {
  let n = 1000n;
  return { next: () => n++ };
};

describe('BotUsers', () => {
  it('when a bot is created, then it is a bot with a four-digit discriminator and no credentials', async () => {
    const users = new MemoryUsers();
    const bot = await new BotUsers(users, counter()).create('Weather Helper');
    expect(bot).toMatchObject({ username: 'Weather Helper', bot: true, email: null, password_hash: null });
    expect(bot.discriminator).toMatch(/^\d{4}$/);
    expect(bot.discriminator).not.toBe('0000');
  });

  it('when the tag is taken, then another discriminator is tried; when every try collides, then 50035 on username', async () => {
    const tried: string[] = [];
    let collisions = 2;
    const colliding = {
      insert(user: NewUser): Promise<UserRow> {
        tried.push(user.discriminator!);
        if (collisions-- > 0) return Promise.reject(new DuplicateBotTagError());
        return new MemoryUsers().insert(user);
      },
    };
    const bot = await new BotUsers(colliding, counter()).create('Same');
    expect(tried).toHaveLength(3);
    expect(bot.discriminator).toBe(tried[2]);

    const always = { insert: () => Promise.reject(new DuplicateBotTagError()) };
    await expect(new BotUsers(always, counter()).create('Same')).rejects.toMatchObject({
      status: 400,
      body: { code: 50035, errors: { username: { _errors: [{ code: 'USERNAME_TOO_MANY_USERS' }] } } },
    });
  });

  it('when another error happens, then it is not retried', async () => {
    let calls = 0;
    const broken = {
      insert: () => {
        calls++;
        return Promise.reject(new Error('db down'));
      },
    };
    await expect(new BotUsers(broken, counter()).create('x')).rejects.toThrow('db down');
    expect(calls).toBe(1);
  });
});

describe('botUsername', () => {
  it('when the name has refused or invisible characters, is long or short, then a username within 2-32 comes out', () => {
    expect(botUsername('  My   @Bot#1:`x`\u200b ')).toBe('My Bot1x');
    expect([...botUsername('é'.repeat(40))]).toHaveLength(32);
    expect(botUsername('a')).toBe('abot');
    expect(botUsername('@@')).toBe('bot');
  });
});

describe('BotTokens', () => {
  it('when the user is a bot, then its sessions issue the new token; a person, an unknown or a disabled bot gets 10013 and none', async () => {
    const users = new MemoryUsers();
    const bot = await new BotUsers(users, counter()).create('Token');
    const issued: string[] = [];
    const tokens = new BotTokens(users, { replaceBotToken: async (id: string) => (issued.push(id), `token-of-${id}`) });
    expect(await tokens.reset(bot.id)).toBe(`token-of-${bot.id}`);
    const person = await users.insert({
      id: '5000',
      username: 'person',
      bot: false,
      global_name: null,
      avatar: null,
      email: 'p@example.com',
      phone: null,
      password_hash: 'x',
      date_of_birth: null,
      disabled_at: null,
      deleted_at: null,
    });
    for (const id of [person.id, '404']) await expect(tokens.reset(id)).rejects.toMatchObject({ status: 404, body: { code: 10013 } });
    expect(issued).toEqual([bot.id]);
  });
});
