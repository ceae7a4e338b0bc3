import { Secret, TOTP } from 'otpauth';

/** The platform's authenticator apps: SHA-1, 6 digits, 30-second steps. */
export const TOTP_PERIOD_SECONDS = 30;
const DIGITS = 6;
/** One step either side absorbs clock drift between the phone and us. */
const WINDOW = 1;
/** 16 base32 characters are 80 bits, RFC 4226's minimum secret length. */
const MIN_SECRET_CHARS = 16;
const MAX_SECRET_CHARS = 128;

/** Clients show secrets in groups of four and in either case; the canonical form has neither. */
export function normalizeSecret(secret: string): string {
  return secret.replace(/[\s-]/g, '').replace(/=+$/, '').toUpperCase();
}

export function isValidSecret(secret: string): boolean {
  const s = normalizeSecret(secret);
  return s.length >= MIN_SECRET_CHARS && s.length <= MAX_SECRET_CHARS && /^[A-Z2-7]+$/.test(s);
}

/** A six-digit code as users type it: spaces allowed, nothing else. */
export const normalizeTotpCode = (code: string): string => code.replace(/\s/g, '');

/**
 * The time step a code belongs to, or undefined when it matches none within the window. The
 * caller remembers used steps so that a code is accepted once per step.
 */
export function matchTotp(secret: string, code: string, nowMs: number): number | undefined {
  const token = normalizeTotpCode(code);
  if (!/^\d{6}$/.test(token)) return undefined;
  const delta = TOTP.validate({
    token,
    secret: Secret.fromBase32(normalizeSecret(secret)),
    digits: DIGITS,
    period: TOTP_PERIOD_SECONDS,
    timestamp: nowMs,
    window: WINDOW,
  });
  if (delta === null) return undefined;
  return Math.floor(nowMs / 1000 / TOTP_PERIOD_SECONDS) + delta;
}

/** The current code of a secret (tests and the enrollment check use it). */
export function totpCode(secret: string, nowMs: number): string {
  return new TOTP({ secret: Secret.fromBase32(normalizeSecret(secret)), digits: DIGITS, period: TOTP_PERIOD_SECONDS }).generate({
    timestamp: nowMs,
  });
}
