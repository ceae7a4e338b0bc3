import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ServiceCallTokens } from './service-calls.js';

const pem = () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

function tokens(key = pem(), clock = { now: 1_800_000_000_000 }) {
  const t = new ServiceCallTokens(() => clock.now);
  t.configure(key, 'social');
  return { t, clock, key };
}

describe('ServiceCallTokens', () => {
  it('when a process signs a call, then a process with the same key accepts it for that service only', () => {
    const { t: social, key } = tokens();
    const { t: auth } = tokens(key);
    const token = social.tokenFor('auth.v1.AuthService');

    expect(auth.verify(token, 'auth.v1.AuthService')).toBe(true);
    expect(auth.verify(token, 'guilds.v1.GuildsService')).toBe(false);
  });

  it('when the token is missing, tampered with, or signed with another key, then it is refused', () => {
    const { t } = tokens();
    const { t: other } = tokens();
    const token = t.tokenFor('auth.v1.AuthService');
    const [head, payload, sig] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const forged = `${head}.${Buffer.from(JSON.stringify({ ...claims, aud: 'guilds.v1.GuildsService' })).toString('base64url')}.${sig}`;

    expect(t.verify(undefined, 'auth.v1.AuthService')).toBe(false);
    expect(t.verify('', 'auth.v1.AuthService')).toBe(false);
    expect(t.verify(forged, 'guilds.v1.GuildsService')).toBe(false);
    expect(other.verify(token, 'auth.v1.AuthService')).toBe(false);
  });

  it('when a token is handed out again, then it is the same for half a minute, and a new one after', () => {
    const { t, clock } = tokens();
    const first = t.tokenFor('auth.v1.AuthService');
    clock.now += 29_000;
    expect(t.tokenFor('auth.v1.AuthService')).toBe(first);
    clock.now += 2_000;
    expect(t.tokenFor('auth.v1.AuthService')).not.toBe(first);
  });

  it('when a token is past its minute (and the clock tolerance), then it is refused, cached or not', () => {
    const key = pem();
    const signer = tokens(key);
    const checker = tokens(key, signer.clock);
    const token = signer.t.tokenFor('auth.v1.AuthService');
    expect(checker.t.verify(token, 'auth.v1.AuthService')).toBe(true);
    signer.clock.now += 66_000;
    expect(checker.t.verify(token, 'auth.v1.AuthService')).toBe(false);
    expect(tokens(key, signer.clock).t.verify(token, 'auth.v1.AuthService')).toBe(false);
  });

  it('when no key is configured, then the process makes one of its own that only it accepts', () => {
    const a = new ServiceCallTokens();
    const b = new ServiceCallTokens();
    const token = a.tokenFor('auth.v1.AuthService');
    expect(a.verify(token, 'auth.v1.AuthService')).toBe(true);
    expect(b.verify(token, 'auth.v1.AuthService')).toBe(false);
    // Configured later without a key (another service started in the same process): the same key stays.
    a.configure(undefined, 'guilds');
    expect(a.verify(token, 'auth.v1.AuthService')).toBe(true);
  });
});
