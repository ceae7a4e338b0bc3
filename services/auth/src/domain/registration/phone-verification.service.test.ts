import { ApiError, type Logger } from '@kith/platform';
import { describe, expect, it, vi } from 'vitest';
import { PhoneVerificationService } from './phone-verification.service.js';
import { RateLimitedError, RateLimiter } from './rate-limit.js';
import { MemoryTickets, MemoryWindows } from '../../../test/fakes/tickets.fake.js';
import type { SmsSender } from '../ports.js';

class RecordingSms implements SmsSender {
  readonly sent: { to: string; body: string }[] = [];
  failing = false;
  send(to: string, body: string) {
    if (this.failing) return Promise.reject(new Error('provider down'));
    this.sent.push({ to, body });
    return Promise.resolve();
  }
}

function setup() {
  const tickets = new MemoryTickets();
  const sms = new RecordingSms();
  const logger = { warn: vi.fn() } as unknown as Logger;
  const service = new PhoneVerificationService(tickets, new RateLimiter(new MemoryWindows()), sms, logger);
  const codeOf = (i = -1) => /(\d{6})/.exec(sms.sent.at(i)!.body)![1]!;
  return { service, sms, tickets, codeOf };
}

const PHONE = '+14155550123';

describe('PhoneVerificationService', () => {
  it('when a code is sent, then a six-digit code is texted and only its hash is stored', async () => {
    const { service, sms, tickets, codeOf } = setup();
    await service.send(PHONE, '1.2.3.4');
    expect(sms.sent).toHaveLength(1);
    expect(sms.sent[0]!.to).toBe(PHONE);
    expect([...tickets.values.values()].join()).not.toContain(codeOf());
  });

  it('when the right code is verified, then a token naming the number comes back, usable until settled', async () => {
    const { service, codeOf } = setup();
    await service.send(PHONE, '1.2.3.4');
    const token = await service.verify(PHONE, codeOf());
    expect(await service.phoneOf(token)).toBe(PHONE);
    await service.settle(token);
    expect(await service.phoneOf(token)).toBeUndefined();
  });

  it('when a wrong code or a code of another number is verified, then a form error on code', async () => {
    const { service, codeOf } = setup();
    await service.send(PHONE, '1.2.3.4');
    const error = await service.verify('+14155550199', codeOf()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).body.errors).toHaveProperty('code');
  });

  it('when a number asks for more codes than its window allows, then RateLimitedError and no text', async () => {
    const { service, sms } = setup();
    // Three texts per number within a code's lifetime, pinned here rather than read from the code.
    for (let i = 0; i < 3; i++) await service.send(PHONE, `10.0.0.${i}`);
    await expect(service.send(PHONE, '10.0.1.1')).rejects.toBeInstanceOf(RateLimitedError);
    expect(sms.sent).toHaveLength(3);
  });

  it('when the provider fails, then PHONE_NUMBER_UNABLE_TO_SEND and the unsent code is forgotten', async () => {
    const { service, sms, tickets } = setup();
    sms.failing = true;
    const error = await service.send(PHONE, '1.2.3.4').catch((e: unknown) => e);
    expect((error as ApiError).body.errors).toEqual({
      phone: { _errors: [expect.objectContaining({ code: 'PHONE_NUMBER_UNABLE_TO_SEND' })] },
    });
    expect([...tickets.values.keys()].some((k) => k.startsWith('phone:code:'))).toBe(false);
  });

  it('when a resend comes with a code pending, then a new code replaces it; without one, nothing is texted', async () => {
    const { service, sms, codeOf } = setup();
    await service.resend(PHONE, '1.2.3.4');
    expect(sms.sent).toHaveLength(0);
    await service.send(PHONE, '1.2.3.4');
    const first = codeOf();
    await service.resend(PHONE, '1.2.3.4');
    expect(sms.sent).toHaveLength(2);
    const second = codeOf();
    if (first !== second) await expect(service.verify(PHONE, first)).rejects.toBeInstanceOf(ApiError);
    expect(await service.phoneOf(await service.verify(PHONE, second))).toBe(PHONE);
  });

  it('when a phone token is taken twice, then only the first gets the number', async () => {
    const { service, codeOf } = setup();
    await service.send(PHONE, '1.2.3.4');
    const token = await service.verify(PHONE, codeOf());
    const [a, b] = await Promise.all([service.take(token), service.take(token)]);
    expect([a, b].filter(Boolean)).toEqual([PHONE]);
  });
});
