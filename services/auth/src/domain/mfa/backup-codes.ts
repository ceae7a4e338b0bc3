import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, randomInt } from 'node:crypto';

export const BACKUP_CODE_COUNT = 10;
const CODE_LENGTH = 8;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** Ten fresh codes of eight lowercase letters and digits (~41 bits each). */
export function generateBackupCodes(): string[] {
  return Array.from({ length: BACKUP_CODE_COUNT }, () =>
    Array.from({ length: CODE_LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join(''),
  );
}

/** Clients may show codes as `abcd-efgh` and users type them in any case. */
export const normalizeBackupCode = (code: string): string => code.replace(/[\s-]/g, '').toLowerCase();

export const looksLikeBackupCode = (code: string): boolean => /^[a-z0-9]{8}$/.test(normalizeBackupCode(code));

export const hashBackupCode = (code: string): Buffer => createHash('sha256').update(normalizeBackupCode(code)).digest();

/**
 * Codes are sealed (AES-256-GCM) with a key derived from the user's TOTP secret, so that viewing
 * them works while a leaked table of codes alone is worthless; the hash is what logins look up.
 */
function keyFor(totpSecret: string, userId: string): Buffer {
  return Buffer.from(hkdfSync('sha256', totpSecret, userId, 'kith backup codes v1', 32));
}

export function sealBackupCode(code: string, totpSecret: string, userId: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFor(totpSecret, userId), iv);
  const data = Buffer.concat([cipher.update(code, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), data].map((b) => b.toString('base64url')).join('.');
}

export function openBackupCode(sealed: string, totpSecret: string, userId: string): string {
  const [iv, tag, data] = sealed.split('.').map((p) => Buffer.from(p, 'base64url')) as [Buffer, Buffer, Buffer];
  const decipher = createDecipheriv('aes-256-gcm', keyFor(totpSecret, userId), iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
}
