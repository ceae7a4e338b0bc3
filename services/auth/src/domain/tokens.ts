import { createHash, randomBytes } from 'node:crypto';

/** A fresh authentication token: the user id for humans reading logs of their own, 256 random bits. */
export function newToken(userId: string): { token: string; hash: Buffer } {
  const token = `${Buffer.from(userId).toString('base64url')}.${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashToken(token) };
}

/** Tokens are stored only as their SHA-256: a leaked table yields no usable token. */
export const hashToken = (token: string): Buffer => createHash('sha256').update(token).digest();

/** A session id (128 random bits) and the hash clients see in `id_hash`. */
export function newSessionId(): { id: string; idHash: string } {
  const id = randomBytes(16).toString('hex');
  return { id, idHash: sessionIdHash(id) };
}

export const sessionIdHash = (sessionId: string): string => createHash('sha256').update(sessionId).digest('base64');
