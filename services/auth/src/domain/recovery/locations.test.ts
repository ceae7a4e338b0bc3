import { describe, expect, it } from 'vitest';
import { MemoryTickets } from '../../../test/fakes/tickets.fake.js';
import type { RenderedMail } from '../../delivery/mail.templates.js';
import { Grants } from './grants.js';
import { RecoveryLinks } from './links.js';
import { countryOf, LoginLocations } from './locations.js';
import type { MailSender, UserRow } from '../ports.js';

function setup() {
  const known = new Set<string>();
  const sent: { to: string; mail: RenderedMail }[] = [];
  const mailer: MailSender = {
    send: (to, mail) => {
      sent.push({ to, mail });
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  };
  const store = {
    knowsLocation: (userId: string, country: string) => Promise.resolve(known.has(`${userId}:${country}`)),
    addLocation: (userId: string, country: string) => {
      known.add(`${userId}:${country}`);
      return Promise.resolve();
    },
  };
  const log = { warn: () => undefined, error: () => undefined } as unknown as ConstructorParameters<typeof LoginLocations>[4];
  const texted: string[] = [];
  const phoneTokens = new Map<string, string>();
  const phones = {
    textCode: (phone: string) => {
      texted.push(phone);
      return Promise.resolve();
    },
    phoneOf: (token: string) => Promise.resolve(phoneTokens.get(token)),
    take: (token: string) => {
      const phone = phoneTokens.get(token);
      phoneTokens.delete(token);
      return Promise.resolve(phone);
    },
  };
  const locations = new LoginLocations(
    store,
    new Grants(new MemoryTickets()),
    mailer,
    new RecoveryLinks('https://kith.test/'),
    log,
    phones,
  );
  return { locations, known, sent, texted, phoneTokens };
}

const user = { id: '1', username: 'ada', email: 'ada@example.com' } as UserRow;

describe('countryOf', () => {
  it('when the address is public, then its GeoIP country', () => {
    expect(countryOf('81.2.69.142')).toBe('GB');
    expect(countryOf('8.8.8.8')).toBe('US');
  });

  it('when the address is loopback, private, reserved or not an address, then null (the known local location)', () => {
    for (const ip of ['127.0.0.1', '::1', '10.0.0.1', '192.168.1.1', '203.0.113.7', '', 'nope']) expect(countryOf(ip)).toBeNull();
  });
});

describe('LoginLocations', () => {
  it('when a login comes from a new country, then the form error and a mail whose token authorizes that country once', async () => {
    const { locations, known, sent } = setup();
    await expect(locations.check(user, '81.2.69.142')).rejects.toMatchObject({
      status: 400,
      body: { errors: { login: { _errors: [{ code: 'ACCOUNT_LOGIN_VERIFICATION_EMAIL' }] } } },
    });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.to).toBe('ada@example.com');
    const token = /authorize-ip#token=([\w-]+)/.exec(sent[0]!.mail.text)![1]!;
    await locations.authorize(token);
    expect(known.has('1:GB')).toBe(true);
    await expect(locations.check(user, '81.2.69.142')).resolves.toBeUndefined();
    await expect(locations.authorize(token)).rejects.toMatchObject({
      body: { errors: { token: { _errors: [{ code: 'TOKEN_INVALID' }] } } },
    });
  });

  it('when a login by phone comes from a new country, then a text, and a phone token of that number authorizes the country once', async () => {
    const { locations, known, sent, texted, phoneTokens } = setup();
    const phoneUser = { ...user, phone: '+14155550100' };
    await expect(locations.check(phoneUser, '81.2.69.142', '+14155550100')).rejects.toMatchObject({
      body: { errors: { login: { _errors: [{ code: 'ACCOUNT_LOGIN_VERIFICATION_PHONE' }] } } },
    });
    expect(texted).toEqual(['+14155550100']);
    expect(sent).toEqual([]);
    phoneTokens.set('elsewhere', '+14155550199');
    await expect(locations.authorize('elsewhere')).rejects.toMatchObject({ status: 400 });
    expect(phoneTokens.has('elsewhere')).toBe(true);
    phoneTokens.set('verified', '+14155550100');
    await locations.authorize('verified');
    expect(known.has('1:GB')).toBe(true);
    phoneTokens.set('again', '+14155550100');
    await expect(locations.authorize('again')).rejects.toMatchObject({ status: 400 });
  });

  it('when the address is local or the account has no email, then no check', async () => {
    const { locations, sent } = setup();
    await expect(locations.check(user, '127.0.0.1')).resolves.toBeUndefined();
    await expect(locations.check({ ...user, email: null }, '8.8.8.8')).resolves.toBeUndefined();
    expect(sent).toEqual([]);
  });

  it('when a location is recorded, then a later login from it passes; a local address records nothing', async () => {
    const { locations, known } = setup();
    await locations.record('1', '8.8.8.8');
    await locations.record('1', '127.0.0.1');
    expect([...known]).toEqual(['1:US']);
    await expect(locations.check(user, '8.8.4.4')).resolves.toBeUndefined();
  });
});
