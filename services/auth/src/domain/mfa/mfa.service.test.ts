import { ApiError } from '@kith/platform';
import { describe, expect, it } from 'vitest';
import { ElevationGuard } from './elevation.js';
import { ElevationTokens } from './elevation-token.js';
import { LoginMfa } from './login-mfa.js';
import { MfaService } from './mfa.service.js';
import { MemoryTicketStore, MemoryWindows } from '../../../test/fakes/tickets.fake.js';
import { GuessLimits } from '../guards/guesses.js';
import { RateLimitedError } from '../registration/rate-limit.js';
import { Tickets } from './tickets.js';
import { totpCode } from './totp.js';
import type { BackupCodeRow, StoredBackupCode } from './ports.js';
import type { UserRow } from '../ports.js';

const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DP';
const NOW = 1_700_000_000_000;

class FakeMfaStore {
  secrets = new Map<string, string>();
  codes = new Map<string, (StoredBackupCode & { consumed: boolean })[]>();
  constructor(private readonly users: Map<string, UserRow>) {}
  async totpSecret(userId: string) {
    return this.secrets.get(userId);
  }
  async enableTotp(userId: string, secret: string, codes: StoredBackupCode[]) {
    const user = this.users.get(userId)!;
    if (user.mfa_enabled) return false;
    user.mfa_enabled = true;
    this.secrets.set(userId, secret);
    this.codes.set(
      userId,
      codes.map((c) => ({ ...c, consumed: false })),
    );
    return true;
  }
  async disableTotp(userId: string) {
    if (!this.secrets.delete(userId)) return false;
    this.users.get(userId)!.mfa_enabled = false;
    return true;
  }
  async backupCodes(userId: string): Promise<BackupCodeRow[]> {
    return (this.codes.get(userId) ?? []).map((c) => ({ code_sealed: c.sealed, consumed: c.consumed }));
  }
  async replaceBackupCodes(userId: string, codes: StoredBackupCode[]) {
    this.codes.set(
      userId,
      codes.map((c) => ({ ...c, consumed: false })),
    );
  }
  async consumeBackupCode(userId: string, hash: Buffer) {
    const code = this.codes.get(userId)?.find((c) => c.hash.equals(hash) && !c.consumed);
    if (code) code.consumed = true;
    return Boolean(code);
  }
}

const LIMIT = 3;

function setup() {
  const alerts: { userId: string; kind: string }[] = [];
  const guesses = new GuessLimits(
    new MemoryWindows(),
    {
      'second-factor': { name: 'mfa', limit: LIMIT, windowMs: 60_000 },
      password: { name: 'password', limit: LIMIT, windowMs: 60_000 },
    },
    { limitReached: (user, kind) => alerts.push({ userId: user.id, kind }) },
  );
  const users = new Map<string, UserRow>([
    ['1', { id: '1', mfa_enabled: false, password_hash: 'pw', locale: 'en-US', theme: 'dark' } as UserRow],
    // Unclaimed: no password, no MFA.
    ['2', { id: '2', mfa_enabled: false, password_hash: null, locale: 'en-US', theme: 'dark' } as UserRow],
  ]);
  const store = new FakeMfaStore(users);
  const used = new Set<string>();
  let storeReads = 0;
  const mfa = new MfaService({
    store,
    steps: { claim: async (u, s) => !used.has(`${u}:${s}`) && Boolean(used.add(`${u}:${s}`)) },
    passwords: { verify: async (hash, password) => hash === password },
    users: {
      findById: async (id) => {
        storeReads++;
        return users.get(id);
      },
    },
    guesses,
    now: () => NOW,
  });
  const tickets = new Tickets(new MemoryTicketStore(), { ttlSeconds: 300, maxAttempts: 5 });
  const tokens = new ElevationTokens(Buffer.alloc(32, 1));
  const guard = new ElevationGuard(tokens, tickets, mfa);
  const sessions = { create: async () => ({ token: 'new-token' }) };
  const login = new LoginMfa({ mfa, tickets, sessions, restore: async () => undefined });
  return { users, store, mfa, tickets, tokens, guard, login, alerts, storeReads: () => storeReads };
}

const codeOf = (work: Promise<unknown>): Promise<number | undefined> =>
  work.then(
    () => undefined,
    (err: unknown) => (err instanceof ApiError ? err.body.code : err instanceof RateLimitedError ? 429 : -1),
  );

describe('MfaService.enableTotp', () => {
  it('when the password is wrong, then 50018; without a secret, then 60005; with a wrong code, then 60008', async () => {
    const { mfa } = setup();
    expect(await codeOf(mfa.enableTotp('1', { password: 'nope', secret: SECRET, code: '000000' }))).toBe(50018);
    expect(await codeOf(mfa.enableTotp('1', { password: 'pw' }))).toBe(60005);
    expect(await codeOf(mfa.enableTotp('1', { password: 'pw', secret: 'short', code: '000000' }))).toBe(60005);
    const wrong = totpCode(SECRET, NOW + 300_000);
    expect(await codeOf(mfa.enableTotp('1', { password: 'pw', secret: SECRET, code: wrong }))).toBe(60008);
  });

  it('when secret and code are right, then ten backup codes; enrolling again, then 60001', async () => {
    const { mfa, users } = setup();
    const codes = await mfa.enableTotp('1', { password: 'pw', secret: SECRET, code: totpCode(SECRET, NOW) });
    expect(codes).toHaveLength(10);
    expect(codes[0]).toEqual({ user_id: '1', code: expect.stringMatching(/^[a-z0-9]{8}$/), consumed: false });
    expect(users.get('1')!.mfa_enabled).toBe(true);
    expect(await codeOf(mfa.enableTotp('1', { password: 'pw', secret: SECRET, code: totpCode(SECRET, NOW) }))).toBe(60001);
  });
});

describe('MfaService.verify and backup codes', () => {
  it('when a TOTP code is used twice in its step, then the second use fails', async () => {
    const { mfa, users } = setup();
    await mfa.enableTotp('1', { password: 'pw', secret: SECRET, code: totpCode(SECRET, NOW) });
    const user = users.get('1')!;
    const next = totpCode(SECRET, NOW + 30_000);
    expect(await mfa.verify(user, 'totp', next)).toBe(true);
    expect(await mfa.verify(user, 'totp', next)).toBe(false);
  });

  it('when a backup code is used, then it works once and shows as consumed; regenerating replaces all', async () => {
    const { mfa, users } = setup();
    const [first] = await mfa.enableTotp('1', { password: 'pw', secret: SECRET, code: totpCode(SECRET, NOW) });
    const user = users.get('1')!;
    expect(await mfa.verify(user, 'backup', first!.code)).toBe(true);
    expect(await mfa.verify(user, 'totp', first!.code)).toBe(false);
    const viewed = await mfa.backupCodes('1', false);
    expect(viewed[0]).toEqual({ user_id: '1', code: first!.code, consumed: true });
    const fresh = await mfa.backupCodes('1', true);
    expect(fresh.map((c) => c.code)).not.toContain(first!.code);
    expect(fresh.every((c) => !c.consumed)).toBe(true);
  });

  it('when the user has MFA, then the password is no factor; without MFA, it is', async () => {
    const { mfa, users } = setup();
    expect(await mfa.verify(users.get('1')!, 'password', 'pw')).toBe(true);
    await mfa.enableTotp('1', { password: 'pw', secret: SECRET, code: totpCode(SECRET, NOW) });
    expect(await mfa.verify(users.get('1')!, 'password', 'pw')).toBe(false);
  });

  it('when TOTP is disabled twice, then the second time 60002', async () => {
    const { mfa } = setup();
    await mfa.enableTotp('1', { password: 'pw', secret: SECRET, code: totpCode(SECRET, NOW) });
    await mfa.disableTotp('1');
    expect(await codeOf(mfa.disableTotp('1'))).toBe(60002);
  });
});

describe('ElevationGuard', () => {
  it('when a valid token for the user session is carried, then it passes without reading any store', async () => {
    const { guard, tokens, storeReads } = setup();
    await guard.require('1', { headers: [undefined, tokens.sign('1', 'sa')], sessionId: 'sa' });
    await guard.require('1', { headers: [], cookie: tokens.sign('1', 'sa'), sessionId: 'sa' });
    expect(storeReads()).toBe(0);
  });

  it('when the token was earned by another session of the user, or no session is named, then 60003', async () => {
    const { guard, tokens } = setup();
    expect(await codeOf(guard.require('1', { headers: [tokens.sign('1', 'sa')], sessionId: 'sb' }))).toBe(60003);
    expect(await codeOf(guard.require('1', { headers: [tokens.sign('1', 'sa')], sessionId: undefined }))).toBe(60003);
  });

  it('when no valid token is carried, then 60003 with a ticket and the password method; /mfa/finish then signs one', async () => {
    const { guard, tokens } = setup();
    const err = (await guard.require('1', { headers: [tokens.sign('2', 'sa')], sessionId: 'sa' }).catch((e: unknown) => e)) as ApiError;
    expect(err.status).toBe(401);
    expect(err.body).toEqual({
      code: 60003,
      message: 'Two factor is required for this operation',
      mfa: { ticket: expect.any(String), methods: [{ type: 'password' }] },
    });
    const ticket = (err.body.mfa as { ticket: string }).ticket;
    expect(await codeOf(guard.finish('1', 'sa', { ticket, mfa_type: 'totp', data: '123456' }))).toBe(60008);
    expect(tokens.verify(await guard.finish('1', 'sa', { ticket, mfa_type: 'password', data: 'pw' }), '1', 'sa')).toBe(true);
    expect(await codeOf(guard.finish('1', 'sa', { ticket, mfa_type: 'password', data: 'pw' }))).toBe(60006);
  });

  it('when the account has neither a password nor MFA (unclaimed), then its session alone passes', async () => {
    const { guard } = setup();
    await expect(guard.require('2', { headers: [], sessionId: 'sa' })).resolves.toBeUndefined();
  });

  it('when another session of the user brings the ticket, then 60006 and nothing is checked', async () => {
    const { guard } = setup();
    const err = (await guard.require('1', { headers: [], sessionId: 'sa' }).catch((e: unknown) => e)) as ApiError;
    const ticket = (err.body.mfa as { ticket: string }).ticket;
    expect(await codeOf(guard.finish('1', 'sb', { ticket, mfa_type: 'password', data: 'pw' }))).toBe(60006);
  });
});

describe('account-wide guess limits', () => {
  it('when wrong passwords reach the limit, then every further check is 429, the right one too, and one alert goes out', async () => {
    const { mfa, users, alerts } = setup();
    const user = users.get('1')!;
    expect(await mfa.passwordMatches(user, 'pw')).toBe(true);
    for (let i = 0; i < LIMIT; i++) expect(await mfa.passwordMatches(user, 'nope')).toBe(false);
    for (const password of ['pw', 'nope']) expect(await codeOf(mfa.checkPassword(user, password))).toBe(429);
    expect(alerts).toEqual([{ userId: '1', kind: 'password' }]);
  });

  it('when codes are wrong over many tickets, then the account limit stops them, whatever the ticket', async () => {
    const { mfa, login, users, alerts } = setup();
    await mfa.enableTotp('1', { password: 'pw', secret: SECRET, code: totpCode(SECRET, NOW) });
    const request = { clientIp: '127.0.0.1' };
    for (let i = 0; i < LIMIT; i++) {
      const challenge = await login.challenge(users.get('1')!, false);
      expect(await codeOf(login.finish('totp', { ticket: challenge.ticket, code: '000000' }, request))).toBe(60008);
    }
    const challenge = await login.challenge(users.get('1')!, false);
    const right = { ticket: challenge.ticket, code: totpCode(SECRET, NOW + 30_000) };
    expect(await codeOf(login.finish('totp', right, request))).toBe(429);
    expect(alerts).toEqual([{ userId: '1', kind: 'second-factor' }]);
  });

  it('when checks are right, then they do not use the allowance up', async () => {
    const { mfa, users } = setup();
    const user = users.get('1')!;
    for (let i = 0; i < LIMIT * 3; i++) expect(await mfa.passwordMatches(user, 'pw')).toBe(true);
    expect(await mfa.passwordMatches(user, 'nope')).toBe(false);
  });
});

describe('LoginMfa', () => {
  it('when the type is sms or webauthn, then 60008; when the code is right, then a token once', async () => {
    const { mfa, login, users } = setup();
    await mfa.enableTotp('1', { password: 'pw', secret: SECRET, code: totpCode(SECRET, NOW) });
    const challenge = await login.challenge(users.get('1')!, false);
    expect(challenge).toMatchObject({ user_id: '1', mfa: true, totp: true, sms: false, backup: true, webauthn: null });
    const input = { ticket: challenge.ticket, code: totpCode(SECRET, NOW + 30_000), login_instance_id: challenge.login_instance_id };
    const request = { clientIp: '127.0.0.1' };
    expect(await codeOf(login.finish('sms', input, request))).toBe(60008);
    expect(await codeOf(login.finish('webauthn', input, request))).toBe(60008);
    expect(await login.finish('totp', input, request)).toEqual({ token: 'new-token', user_settings: { locale: 'en-US', theme: 'dark' } });
    expect(await codeOf(login.finish('totp', input, request))).toBe(60006);
  });
});
