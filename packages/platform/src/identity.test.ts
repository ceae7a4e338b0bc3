import { SignJWT, importPKCS8, importSPKI, jwtVerify } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from './errors.js';
import { IDENTITY_TTL_SECONDS, IdentitySigner, IdentityVerifier, type Identity } from './identity.js';
import { testKeys } from './testing/index.js';

const keys = testKeys();
const alice: Identity = { userId: '175928847299117063', sessionId: 's1', clientIp: '203.0.113.9', requestId: 'req-1', fingerprint: 'fp-1' };

let signer: IdentitySigner;
let verifier: IdentityVerifier;
beforeAll(async () => {
  signer = await IdentitySigner.fromPem(keys.privateKey);
  verifier = await IdentityVerifier.fromPem(keys.publicKey, 'auth');
});

async function expectUnauthorized(promise: Promise<unknown>) {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).status).toBe(401);
  expect((err as ApiError).body).toEqual({ code: 0, message: '401: Unauthorized' });
}

/** A token as the gateway would sign it, with claims the test chooses. */
async function craft(claims: { iss?: string; aud?: string; iat?: number; exp?: number; sub?: string }) {
  const key = await importPKCS8(keys.privateKey, 'EdDSA');
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({ ip: '127.0.0.1', rid: 'r' })
    .setProtectedHeader({ alg: 'EdDSA' })
    .setIssuer(claims.iss ?? 'kith-gateway')
    .setAudience(claims.aud ?? 'auth')
    .setIssuedAt(claims.iat ?? now)
    .setExpirationTime(claims.exp ?? now + IDENTITY_TTL_SECONDS);
  if (claims.sub) jwt.setSubject(claims.sub);
  return jwt.sign(key);
}

describe('IdentitySigner and IdentityVerifier', () => {
  it('when an identity is signed for a service, then that service verifies the same identity', async () => {
    const token = await signer.sign(alice, 'auth');
    await expect(verifier.verify(token)).resolves.toEqual(alice);
  });

  it('when the identity is anonymous, then it verifies with a null user, session and fingerprint', async () => {
    const anonymous: Identity = { userId: null, sessionId: null, clientIp: '198.51.100.1', requestId: 'req-2', fingerprint: null };
    const token = await signer.sign(anonymous, 'auth');
    await expect(verifier.verify(token)).resolves.toEqual(anonymous);
  });

  it('when a token well inside its lifetime is crafted by hand, then it verifies (the crafting is right)', async () => {
    await expect(verifier.verify(await craft({ sub: '42' }))).resolves.toMatchObject({ userId: '42', clientIp: '127.0.0.1' });
  });

  it('when a token is signed, then a standard JWT library (jose) verifies it with the public key', async () => {
    const token = await signer.sign(alice, 'auth');
    const { payload, protectedHeader } = await jwtVerify(token, await importSPKI(keys.publicKey, 'EdDSA'), {
      issuer: 'kith-gateway',
      audience: 'auth',
      maxTokenAge: `${IDENTITY_TTL_SECONDS}s`,
    });
    expect(protectedHeader.alg).toBe('EdDSA');
    expect(payload).toMatchObject({
      sub: alice.userId,
      sid: alice.sessionId,
      ip: alice.clientIp,
      rid: alice.requestId,
      fp: alice.fingerprint,
    });
  });

  it('when the token was signed for another service, then it is a 401', async () => {
    await expectUnauthorized(verifier.verify(await signer.sign(alice, 'billing')));
  });

  it('when the token was signed with another key, then it is a 401', async () => {
    const other = await IdentitySigner.fromPem(testKeys().privateKey);
    await expectUnauthorized(verifier.verify(await other.sign(alice, 'auth')));
  });

  it('when the token has expired, then it is a 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    await expectUnauthorized(verifier.verify(await craft({ iat: now - 20, exp: now - 5 })));
  });

  it('when the token claims a long life but was issued too long ago, then it is a 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    await expectUnauthorized(verifier.verify(await craft({ iat: now - 600, exp: now + 600 })));
  });

  it('when the token comes from another issuer, then it is a 401', async () => {
    await expectUnauthorized(verifier.verify(await craft({ iss: 'someone-else' })));
  });

  it('when the payload is tampered with, then the signature fails and it is a 401', async () => {
    const [header, payload, signature] = (await signer.sign(alice, 'auth')).split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: '1' })).toString('base64url');
    await expectUnauthorized(verifier.verify(`${header}.${forged}.${signature}`));
  });

  it('when the token is unsigned (alg none), then it is a 401', async () => {
    const [, payload] = (await signer.sign(alice, 'auth')).split('.') as [string, string];
    const none = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
    await expectUnauthorized(verifier.verify(`${none}.${payload}.`));
  });

  it('when the token is missing, empty or garbage, then it is a 401', async () => {
    await expectUnauthorized(verifier.verify(undefined));
    await expectUnauthorized(verifier.verify(''));
    await expectUnauthorized(verifier.verify('not.a.jwt'));
  });
});
