import { describe, expect, it } from 'vitest';
import { createLogger } from '@kith/platform';
import { GatewayConnection, type Transport } from './connection.js';
import { MemberRequests, requestGuildMembersData } from './member-requests.js';
import type { FoundMembers, GuildsPort, MemberSearchRequest, PresenceReader } from './ports.js';

const transport: Transport = { send: () => undefined, close: () => undefined, compressEachFrame: () => undefined };

function setup(members: number, guildIds = ['11', '12']) {
  let now = 0;
  const asked: MemberSearchRequest[] = [];
  const sent: { name: string; data: Record<string, unknown> }[] = [];
  const all = Array.from({ length: members }, (_, i) => ({ user: { id: String(1000 + i) } }));
  const guilds: GuildsPort = {
    readyState: async () => ({ guilds: [], privateChannels: [], guildIds: [] }),
    async searchMembers(request): Promise<FoundMembers> {
      asked.push(request);
      const after = request.after ? Number(request.after) : 0;
      return { members: all.filter((m) => Number(m.user.id) > after).slice(0, 1000), notFound: [] };
    },
  };
  const presences: PresenceReader = {
    presences: async (ids) => ids.map((id) => ({ user: { id }, status: 'online', activities: [], client_status: {} })),
  };
  const requests = new MemberRequests({
    guilds,
    presences,
    replies: { send: async (_session, name, data) => void sent.push({ name, data: data as Record<string, unknown> }) },
    logger: createLogger('test', 'silent'),
    now: () => now,
  });
  const conn = new GatewayConnection('c1', transport, '127.0.0.1', 10, 0);
  conn.guilds = new Set(guildIds);
  /** Past the 30 s a guild's request holds back the next one. */
  const later = () => (now += 30_000);
  return { requests, conn, asked, sent, advance: (ms: number) => (now += ms), later };
}

const parse = (d: unknown) => requestGuildMembersData.parse(d);
const user = { userId: 'u1', sessionId: 's1', bot: false, intents: 0 };

describe('MemberRequests', () => {
  it('when the whole list has more than 1000 members, then it comes in chunks of 1000 with their index and count', async () => {
    const { requests, conn, asked, sent } = setup(2500);
    await requests.handle(conn, user, parse({ guild_id: '11', query: '', limit: 0, nonce: 'n' }));
    expect(asked.map((a) => a.after)).toEqual(['', '1999', '2999']);
    expect(sent.map((s) => [s.name, (s.data.members as unknown[]).length, s.data.chunk_index, s.data.chunk_count, s.data.nonce])).toEqual([
      ['GUILD_MEMBERS_CHUNK', 1000, 0, 3, 'n'],
      ['GUILD_MEMBERS_CHUNK', 1000, 1, 3, 'n'],
      ['GUILD_MEMBERS_CHUNK', 500, 2, 3, 'n'],
    ]);
  });

  it('when a bot asks without the GUILD_MEMBERS intent, then guilds is told it is not privileged; with it, it is', async () => {
    const { requests, conn, asked, later } = setup(1);
    await requests.handle(conn, { ...user, bot: true, intents: 0 }, parse({ guild_id: '11', query: '', limit: 0 }));
    later();
    await requests.handle(conn, { ...user, bot: true, intents: 1 << 1 }, parse({ guild_id: '11', query: '', limit: 0 }));
    expect(asked.map((a) => a.privileged)).toEqual([false, true]);
  });

  it('when a bot names several guilds, then only the first is answered; a user gets every guild they are in', async () => {
    const bot = setup(1, ['11', '12', '13']);
    await bot.requests.handle(bot.conn, { ...user, bot: true }, parse({ guild_id: ['11', '12'], user_ids: ['1000'] }));
    expect(bot.sent.map((s) => s.data.guild_id)).toEqual(['11']);
    const person = setup(1, ['11', '13']);
    await person.requests.handle(person.conn, user, parse({ guild_id: ['11', '12', '13'], user_ids: ['1000'] }));
    expect(person.sent.map((s) => s.data.guild_id)).toEqual(['11', '13']);
  });

  it('when presences are asked for, then a bot gets them only with the GUILD_PRESENCES intent', async () => {
    const { requests, conn, sent, later } = setup(1);
    await requests.handle(conn, { ...user, bot: true, intents: 0 }, parse({ guild_id: '11', user_ids: '1000', presences: true }));
    later();
    await requests.handle(conn, { ...user, bot: true, intents: 1 << 8 }, parse({ guild_id: '11', user_ids: '1000', presences: true }));
    expect(sent.map((s) => s.data.presences)).toEqual([undefined, [expect.objectContaining({ user: { id: '1000' } })]]);
  });

  it('when a guild is asked for again within 30 s, then RATE_LIMITED answers with the wait; other guilds, and the same one after, are answered', async () => {
    const { requests, conn, sent, advance } = setup(1);
    await requests.handle(conn, user, parse({ guild_id: '11', user_ids: ['1000'], nonce: 'a' }));
    advance(12_500);
    await requests.handle(conn, user, parse({ guild_id: ['11', '12'], user_ids: ['1000'], nonce: 'b' }));
    await requests.handle(conn, user, parse({ guild_id: '11', user_ids: ['1000'] }));
    advance(17_500);
    await requests.handle(conn, user, parse({ guild_id: '11', user_ids: ['1000'], nonce: 'c' }));
    expect(sent.map((s) => [s.name, s.data.guild_id ?? s.data])).toEqual([
      ['GUILD_MEMBERS_CHUNK', '11'],
      ['RATE_LIMITED', { opcode: 8, retry_after: 17.5, meta: { guild_id: '11', nonce: 'b' } }],
      ['GUILD_MEMBERS_CHUNK', '12'],
      ['RATE_LIMITED', { opcode: 8, retry_after: 17.5, meta: { guild_id: '11' } }],
      ['GUILD_MEMBERS_CHUNK', '11'],
    ]);
    // Another connection (another session) has its own limit.
    const other = new GatewayConnection('c2', transport, '127.0.0.1', 10, 0);
    other.guilds = new Set(['11']);
    await requests.handle(other, { ...user, sessionId: 's2' }, parse({ guild_id: '11', user_ids: ['1000'] }));
    expect(sent.at(-1)?.name).toBe('GUILD_MEMBERS_CHUNK');
  });

  it('when the nonce is longer than 32 bytes, then the chunks carry none', async () => {
    const { requests, conn, sent } = setup(1);
    await requests.handle(conn, user, parse({ guild_id: '11', user_ids: ['1000'], nonce: 'x'.repeat(33) }));
    expect(sent[0]!.data).not.toHaveProperty('nonce');
  });

  it('when a payload names neither query nor user ids, or a query without limit, then it does not parse', () => {
    expect(requestGuildMembersData.safeParse({ guild_id: '1' }).success).toBe(false);
    expect(requestGuildMembersData.safeParse({ guild_id: '1', query: 'a' }).success).toBe(false);
    expect(requestGuildMembersData.safeParse({ guild_id: [], user_ids: ['1'] }).success).toBe(false);
    expect(requestGuildMembersData.safeParse({ guild_id: '1', user_ids: Array.from({ length: 101 }, () => '1') }).success).toBe(false);
  });
});
