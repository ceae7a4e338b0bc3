import { ApiError } from '@kith/platform';
import { describe, expect, it } from 'vitest';
import { Tickets, type TicketRecord, type TicketStore } from './tickets.js';

class FakeTicketStore implements TicketStore {
  readonly entries = new Map<string, { record: TicketRecord; attempts: number }>();
  async put(hash: string, record: TicketRecord) {
    this.entries.set(hash, { record, attempts: 0 });
  }
  async get(hash: string) {
    return this.entries.get(hash)?.record;
  }
  async fail(hash: string) {
    const entry = this.entries.get(hash);
    if (!entry) return Number.MAX_SAFE_INTEGER;
    return ++entry.attempts;
  }
  async take(hash: string) {
    return this.entries.delete(hash);
  }
}

const codeOf = async (work: Promise<unknown>): Promise<number | undefined> =>
  work.then(
    () => undefined,
    (err: unknown) => (err instanceof ApiError ? err.body.code : -1),
  );

function setup() {
  const store = new FakeTicketStore();
  return { store, tickets: new Tickets(store, { ttlSeconds: 300, maxAttempts: 3 }) };
}

describe('Tickets', () => {
  it('when issued, then only its hash is stored and it opens for its purpose and login instance', async () => {
    const { store, tickets } = setup();
    const ticket = await tickets.issue({ userId: '42', purpose: 'login', loginInstanceId: 'li' });
    expect(ticket.length).toBeGreaterThan(43);
    expect([...store.entries.keys()].some((k) => k.includes(ticket))).toBe(false);
    expect(await tickets.open(ticket, 'login', 'li')).toMatchObject({ userId: '42' });
    expect(await tickets.open(ticket, 'login')).toMatchObject({ userId: '42' });
  });

  it('when opened for another purpose, another login instance or unknown, then 60006', async () => {
    const { tickets } = setup();
    const ticket = await tickets.issue({ userId: '42', purpose: 'login', loginInstanceId: 'li' });
    expect(await codeOf(tickets.open(ticket, 'elevation'))).toBe(60006);
    expect(await codeOf(tickets.open(ticket, 'login', 'other'))).toBe(60006);
    expect(await codeOf(tickets.open('nope', 'login'))).toBe(60006);
  });

  it('when consumed, then it cannot be consumed or opened again', async () => {
    const { tickets } = setup();
    const ticket = await tickets.issue({ userId: '42', purpose: 'elevation' });
    await tickets.consume(ticket);
    expect(await codeOf(tickets.consume(ticket))).toBe(60006);
    expect(await codeOf(tickets.open(ticket, 'elevation'))).toBe(60006);
  });

  it('when codes are wrong, then 60008 each time and the ticket dies at the limit', async () => {
    const { tickets } = setup();
    const ticket = await tickets.issue({ userId: '42', purpose: 'elevation' });
    for (let i = 0; i < 3; i++) expect(await codeOf(tickets.reject(ticket))).toBe(60008);
    expect(await codeOf(tickets.open(ticket, 'elevation'))).toBe(60006);
  });
});
