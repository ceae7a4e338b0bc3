import { describe, expect, it } from 'vitest';
import { ApiError } from '@kith/platform';
import type { OneTimeValues, UserRow } from '../ports.js';
import { StandingService } from './standing.service.js';
import type { StandingPort } from './standing.ports.js';

class MemoryValues implements Pick<OneTimeValues, 'put' | 'get'> {
  readonly map = new Map<string, string>();
  async put(key: string, value: string) {
    this.map.set(key, value);
  }
  async get(key: string) {
    return this.map.get(key) ?? null;
  }
}

const noStore = {} as StandingPort;
const user = (extra: Partial<UserRow>) => ({ id: '42', username: 'ana', ...extra }) as UserRow;
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as ApiError,
  );

function setup() {
  const values = new MemoryValues();
  const service = new StandingService(noStore, values as unknown as OneTimeValues, { next: () => '7' });
  return { values, service };
}

describe('StandingService.admit', () => {
  it('when the account is suspended, then 403 with the user id and a suspended user token that resolves to the user', async () => {
    const { service, values } = setup();
    const err = await failure(service.admit(user({ suspended_at: new Date() }), 'a fine password'));
    expect(err?.status).toBe(403);
    const body = err!.body as unknown as { user_id: string; suspended_user_token: string };
    expect(body.user_id).toBe('42');
    expect(body.suspended_user_token).toMatch(/^[\w-]{43}$/);
    // Only its hash is kept.
    expect([...values.map.keys()].some((k) => k.includes(body.suspended_user_token))).toBe(false);
    expect(await service.suspendedUser(body.suspended_user_token)).toBe('42');
    expect((await failure(service.suspendedUser('not-a-token')))?.body.code).toBe(50014);
  });

  it('when the account is locked, then 50035 ACCOUNT_COMPROMISED_RESET_PASSWORD', async () => {
    const err = await failure(setup().service.admit(user({ locked_at: new Date() }), 'a fine password'));
    expect(err?.body).toMatchObject({ code: 50035, errors: { login: { _errors: [{ code: 'ACCOUNT_COMPROMISED_RESET_PASSWORD' }] } } });
  });

  it('when an update is required or the password breaks today’s rules, then update_password; otherwise nothing', async () => {
    const { service } = setup();
    expect(await service.admit(user({ password_update_required: true }), 'a fine password')).toEqual(['update_password']);
    expect(await service.admit(user({}), 'short')).toEqual(['update_password']);
    expect(await service.admit(user({}), 'x'.repeat(73))).toEqual(['update_password']);
    expect(await service.admit(user({}), 'a fine password')).toEqual([]);
  });
});
