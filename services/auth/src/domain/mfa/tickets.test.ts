import { ApiError } from '@kith/platform';
import { describe, expect, it } from 'vitest';
import { MemoryTicketStore } from '../../../test/fakes/tickets.fake.js';
import { Tickets } from './tickets.js';

const codeOf = async (work: Promise<unknown>): Promise<number | undefined> =>
  work.then(
    () => undefined,
    (err: unknown) => (err instanceof ApiError ? err.body.code : -1),
  );

function setup() {
  const store = new MemoryTicketStore();
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

  it('when attempts are made, then each counts before its code is checked and past the limit the ticket answers 60006', async () => {
    const { tickets } = setup();
    const ticket = await tickets.issue({ userId: '42', purpose: 'elevation' });
    for (let i = 0; i < 3; i++) expect(await tickets.attempt(ticket, 'elevation')).toMatchObject({ userId: '42' });
    expect(await codeOf(tickets.attempt(ticket, 'elevation'))).toBe(60006);
    expect(() => tickets.reject()).toThrow(expect.objectContaining({ body: expect.objectContaining({ code: 60008 }) }));
    // The attempts were spent, not the ticket: a right code that was let in still consumes it, once.
    await tickets.consume(ticket);
    expect(await codeOf(tickets.consume(ticket))).toBe(60006);
  });

  it('when attempts arrive at once, then no more than the limit get the record', async () => {
    const { tickets } = setup();
    const ticket = await tickets.issue({ userId: '42', purpose: 'login', loginInstanceId: 'li' });
    const results = await Promise.all(Array.from({ length: 20 }, () => codeOf(tickets.attempt(ticket, 'login', 'li'))));
    expect(results.filter((r) => r === undefined)).toHaveLength(3);
    expect(results.filter((r) => r === 60006)).toHaveLength(17);
  });

  it('when an attempt names another purpose or login instance, then 60006 and the attempt still counts', async () => {
    const { tickets } = setup();
    const ticket = await tickets.issue({ userId: '42', purpose: 'login', loginInstanceId: 'li' });
    expect(await codeOf(tickets.attempt(ticket, 'elevation'))).toBe(60006);
    expect(await codeOf(tickets.attempt(ticket, 'login', 'other'))).toBe(60006);
    expect(await tickets.attempt(ticket, 'login', 'li')).toMatchObject({ userId: '42' });
    expect(await codeOf(tickets.attempt(ticket, 'login', 'li'))).toBe(60006);
  });
});
