import { Secret, TOTP } from 'otpauth';
import { expect } from 'vitest';
import { api, newUser } from './client.js';

/** A fresh authenticator-app secret (160 bits, base32). */
export const newSecret = (): string => new Secret({ size: 20 }).base32;
const STEP_MS = 30_000;
export const codeOfStep = (secret: string, step: number): string =>
  new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: step * STEP_MS });

/**
 * A code auth will take: auth accepts the steps either side of now, each once per user, so this
 * picks one of them the user has not spent yet (whatever step boundaries passed meanwhile).
 */
export function freshCode(user: { secret: string; usedSteps: Set<number> }): string {
  const now = Math.floor(Date.now() / STEP_MS);
  const step = [now + 1, now, now - 1].find((s) => !user.usedSteps.has(s))!;
  user.usedSteps.add(step);
  return codeOfStep(user.secret, step);
}

/** A six-digit code that is none of the codes auth could accept around now (two steps either side, for slow runs). */
export function wrongCode(secret: string): string {
  const now = Math.floor(Date.now() / STEP_MS);
  const valid = new Set([-2, -1, 0, 1, 2].map((d) => codeOfStep(secret, now + d)));
  for (let n = 0; ; n++) {
    const code = String((n * 7919) % 1_000_000).padStart(6, '0');
    if (!valid.has(code)) return code;
  }
}

export type TotpUser = Awaited<ReturnType<typeof totpUser>>;

/** A registered user with TOTP on, enrolled through the gateway with the current step's code. */
export async function totpUser() {
  const user = await newUser();
  const secret = newSecret();
  const usedSteps = new Set<number>();
  const enabled = await api('POST', '/users/@me/mfa/totp/enable', {
    token: user.token,
    body: { password: user.password, secret, code: freshCode({ secret, usedSteps }) },
  });
  expect(enabled.status, JSON.stringify(enabled.json)).toBe(200);
  expect(enabled.json.backup_codes).toHaveLength(10);
  // Enabling MFA ends the other sessions and answers a new token for this one.
  return { ...user, secret, usedSteps, token: enabled.json.token as string };
}

/** The platform's 429 body, and a Retry-After that agrees with it. */
export function expectRateLimited(reply: { status: number; headers: Headers; json: Record<string, unknown> }): number {
  expect(reply.status, JSON.stringify(reply.json)).toBe(429);
  expect(reply.json).toEqual({ message: 'You are being rate limited.', retry_after: expect.any(Number), global: false });
  const retryAfter = reply.json.retry_after as number;
  expect(retryAfter).toBeGreaterThan(0);
  expect(reply.headers.get('retry-after')).toBe(String(Math.ceil(retryAfter)));
  return retryAfter;
}
