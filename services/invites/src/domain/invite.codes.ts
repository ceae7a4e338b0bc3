import { randomInt } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** 62^10 ≈ 8.4e17 codes: guessing one is hopeless within the edge's rate limits. */
const LENGTH = 10;

/** A fresh invite code: ten characters of [A-Za-z0-9], each drawn uniformly from the CSPRNG. */
export function newInviteCode(): string {
  let code = '';
  for (let i = 0; i < LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

/** What a code looks like: 8 to 10 characters of [A-Za-z0-9] (a client's own friend invite code too). */
export const isInviteCode = (code: string): boolean => /^[A-Za-z0-9]{8,10}$/.test(code);
