import type { ApiError, Logger } from '@kith/platform';
import { describe, expect, it } from 'vitest';
import { FingerprintsService } from './fingerprints.service.js';
import { PhoneVerificationService } from './phone-verification.service.js';
import { MemoryTickets, MemoryWindows } from '../../../test/fakes/tickets.fake.js';
import { RateLimiter } from './rate-limit.js';
import { RegistrationGate } from './registration.gate.js';

function setup() {
  const tickets = new MemoryTickets();
  let n = 1_100_000_000_000_000_000n;
  const fingerprints = new FingerprintsService(tickets, { next: () => String(n++) }, new RateLimiter(new MemoryWindows()));
  const texts: string[] = [];
  const phones = new PhoneVerificationService(
    tickets,
    new RateLimiter({ hit: () => Promise.resolve({ count: 1, resetAfterMs: 1 }) }),
    {
      send: (_to, body) => {
        texts.push(body);
        return Promise.resolve();
      },
    },
    {} as Logger,
  );
  return { gate: new RegistrationGate(phones, fingerprints), fingerprints, phones, texts };
}

const fieldsOf = async (promise: Promise<unknown>) => Object.keys(((await promise.catch((e: unknown) => e)) as ApiError).body.errors ?? {});

describe('RegistrationGate', () => {
  it('when the caller is in a consent country without consent, then a form error on consent', async () => {
    const { gate } = setup();
    expect(await fieldsOf(gate.admit({}, '81.2.69.142'))).toEqual(['consent']);
    await expect(gate.admit({ consent: true }, '81.2.69.142')).resolves.toBeDefined();
  });

  it('when consent and the phone token both fail, then both are reported together', async () => {
    const { gate } = setup();
    expect((await fieldsOf(gate.admit({ phone_token: 'x' }, '81.2.69.142'))).sort()).toEqual(['consent', 'phone_token']);
  });

  it('when the phone token and fingerprint are valid, then the admission carries them until settled', async () => {
    const { gate, fingerprints, phones, texts } = setup();
    const fp = await fingerprints.issue('8.8.8.8');
    await phones.send('+14155550123', '8.8.8.8');
    const token = await phones.verify('+14155550123', /(\d{6})/.exec(texts[0]!)![1]!);
    const admission = await gate.admit({ phone_token: token, fingerprint: fp }, '8.8.8.8');
    expect(admission).toMatchObject({ id: fp.split('.')[0], phone: '+14155550123' });
    await admission.settle();
    expect(await phones.phoneOf(token)).toBeUndefined();
    expect(await fingerprints.idOf(fp)).toBeUndefined();
  });

  it('when the fingerprint is unknown, then the admission has no id and no error', async () => {
    const { gate } = setup();
    const admission = await gate.admit({ fingerprint: '1.abcdefghijklmnopqrstuvwxyz' }, '8.8.8.8');
    expect(admission.id).toBeUndefined();
    await admission.settle();
  });
});
