import { ApiError, type Logger } from '@kith/platform';
import { describe, expect, it, vi } from 'vitest';
import { MemoryTickets, MemoryWindows, MemoryTicketStore } from '../../../test/fakes/tickets.fake.js';
import { RateLimitedError, RateLimiter } from '../registration/rate-limit.js';
import { SmsCodes, redactMfaPhone } from './sms.js';
import { Tickets } from './tickets.js';
import type { SmsSender, UserRow } from '../ports.js';

class RecordingSms implements SmsSender {
  readonly sent: { to: string; body: string }[] = [];
  failing = false;
  send(to: string, body: string) {
    if (this.failing) return Promise.reject(new Error('provider down'));
    this.sent.push({ to, body });
    return Promise.resolve();
  }
}

const PHONE = '+14155551234';

function setup(overrides: Partial<UserRow> = {}) {
  const user = { id: '1', mfa_enabled: true, sms_mfa_enabled: true, phone: PHONE, ...overrides } as UserRow;
  const tickets = new Tickets(new MemoryTicketStore(), { ttlSeconds: 300, maxAttempts: 5 });
  const sms = new RecordingSms();
  const codes = new SmsCodes({
    tickets,
    users: { user: () => Promise.resolve(user) },
    codes: new MemoryTickets(),
    limiter: new RateLimiter(new MemoryWindows()),
    sms,
    logger: { warn: vi.fn() } as unknown as Logger,
  });
  const lastCode = () => /(\d{6})/.exec(sms.sent.at(-1)?.body ?? '')?.[1] ?? '';
  return { user, tickets, sms, codes, lastCode };
}

const codeOf = async (p: Promise<unknown>) => ((await p.catch((e: unknown) => e)) as ApiError).body?.code;

describe('redactMfaPhone', () => {
  it('when a number is redacted, then only its last four digits show, as the platform answers', () => {
    expect(redactMfaPhone('+14155551234')).toBe('+*******1234');
    expect(redactMfaPhone('+447700900085')).toBe('+********0085');
  });
});

describe('SmsCodes', () => {
  it('when a code is sent for a login ticket, then it is texted and proves the factor once for that ticket', async () => {
    const { codes, tickets, sms, user, lastCode } = setup();
    const ticket = await tickets.issue({ userId: '1', purpose: 'login' });
    expect(await codes.send(ticket)).toEqual({ phone: '+*******1234' });
    expect(sms.sent).toEqual([{ to: PHONE, body: expect.stringMatching(/\b\d{6}\b/) }]);
    const other = await tickets.issue({ userId: '1', purpose: 'login' });
    expect(await codes.verify(other, user, lastCode())).toBe(false);
    expect(await codes.verify(ticket, user, 'abcdef')).toBe(false);
    expect(await codes.verify(ticket, user, lastCode())).toBe(true);
    expect(await codes.verify(ticket, user, lastCode())).toBe(false);
  });

  it('when the ticket is an elevation ticket, then a code is sent too; an unknown ticket is 60006', async () => {
    const { codes, tickets } = setup();
    expect(await codes.send(await tickets.issue({ userId: '1', purpose: 'elevation' }))).toEqual({ phone: '+*******1234' });
    expect(await codeOf(codes.send('unknown'))).toBe(60006);
  });

  it('when the user has no SMS MFA, then 60010 and nothing is texted', async () => {
    const { codes, tickets, sms } = setup({ sms_mfa_enabled: false });
    expect(await codeOf(codes.send(await tickets.issue({ userId: '1', purpose: 'login' })))).toBe(60010);
    expect(sms.sent).toEqual([]);
  });

  it('when a ticket asks for a fourth text, then RateLimitedError', async () => {
    const { codes, tickets } = setup();
    const ticket = await tickets.issue({ userId: '1', purpose: 'login' });
    for (let i = 0; i < 3; i++) await codes.send(ticket);
    await expect(codes.send(ticket)).rejects.toBeInstanceOf(RateLimitedError);
  });

  it('when the user asks for more texts across tickets than its limit, then RateLimitedError', async () => {
    const { codes, tickets } = setup();
    for (let i = 0; i < 6; i++) await codes.send(await tickets.issue({ userId: '1', purpose: 'login' }));
    await expect(codes.send(await tickets.issue({ userId: '1', purpose: 'login' }))).rejects.toBeInstanceOf(RateLimitedError);
  });

  it('when the provider refuses the text, then 50035 on phone and no code is left to guess', async () => {
    const { codes, tickets, sms, user } = setup();
    sms.failing = true;
    const ticket = await tickets.issue({ userId: '1', purpose: 'login' });
    const error = (await codes.send(ticket).catch((e: unknown) => e)) as ApiError;
    expect(error.body).toMatchObject({ code: 50035, errors: { phone: { _errors: [{ code: 'PHONE_NUMBER_UNABLE_TO_SEND' }] } } });
    expect(await codes.verify(ticket, user, '000000')).toBe(false);
  });
});
