import { createPrivateKey, createPublicKey, sign as edSign, verify as edVerify, type KeyObject } from 'node:crypto';

/*
 * Compact JWS (RFC 7515/8037: `{"alg":"EdDSA"}`, Ed25519), readable by any JWT library. Made and
 * checked with node:crypto's one-shot Ed25519 because it runs on every request and every gRPC call:
 * on the project's machines jose's WebCrypto path costs ~93 µs to sign and ~179 µs to verify,
 * node:crypto ~27 µs and ~73 µs.
 */
const HEADER = Buffer.from(JSON.stringify({ alg: 'EdDSA', typ: 'JWT' })).toString('base64url');

/** A PEM passed through an environment variable often arrives with its newlines as `\n`. */
const pemFromEnv = (pem: string): string => pem.replace(/\\n/g, '\n').trim();

export function ed25519PrivateKey(pem: string): KeyObject {
  const key = createPrivateKey(pemFromEnv(pem));
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('the key must be Ed25519');
  return key;
}

export function ed25519PublicKey(pem: string): KeyObject {
  const key = createPublicKey(pemFromEnv(pem));
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('the key must be Ed25519');
  return key;
}

export function signJws(claims: object, key: KeyObject): string {
  const input = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${input}.${edSign(null, Buffer.from(input), key).toString('base64url')}`;
}

/** The claims of a token this key signed with EdDSA, or undefined for anything else. */
export function readJws(token: string, key: KeyObject): Record<string, unknown> | undefined {
  if (token.length > 4096) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [header, payload, signature] = parts as [string, string, string];
  try {
    const head = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: unknown; crit?: unknown };
    if (head.alg !== 'EdDSA' || head.crit !== undefined) return undefined;
    if (!edVerify(null, Buffer.from(`${header}.${payload}`), key, Buffer.from(signature, 'base64url'))) return undefined;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
    return typeof claims === 'object' && claims !== null && !Array.isArray(claims) ? (claims as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
