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

/** A clock the test moves; a fresh key pair so nothing is shared with the tests above. */
async function withClock(signerOptions: { reuseMs?: number; maxEntries?: number } = {}, verifierEntries?: number) {
  const pair = testKeys();
  const clock = { now: Date.UTC(2026, 0, 1, 12, 0, 0) };
  const now = () => clock.now;
  return {
    clock,
    signer: await IdentitySigner.fromPem(pair.privateKey, { ...signerOptions, now }),
    verifier: await IdentityVerifier.fromPem(pair.publicKey, 'auth', {
      now,
      ...(verifierEntries === undefined ? {} : { maxEntries: verifierEntries }),
    }),
  };
}

const { requestId: _unsigned, ...aliceUnsigned } = alice;

describe('IdentitySigner reuse', () => {
  it('when the same identity is signed again within the reuse window, then the same token comes back', async () => {
    const { clock, signer } = await withClock({ reuseMs: 5000 });
    const first = signer.signSync(aliceUnsigned, 'auth');
    clock.now += 4999;
    expect(signer.signSync(aliceUnsigned, 'auth')).toBe(first);
    clock.now += 1;
    expect(signer.signSync(aliceUnsigned, 'auth')).not.toBe(first);
  });

  it('when any part of the identity or the audience differs, then another token is signed', async () => {
    const { signer } = await withClock({ reuseMs: 5000 });
    const first = signer.signSync(aliceUnsigned, 'auth');
    const others = [
      signer.signSync(aliceUnsigned, 'social'),
      signer.signSync({ ...aliceUnsigned, sessionId: 's2' }, 'auth'),
      signer.signSync({ ...aliceUnsigned, userId: '1' }, 'auth'),
      signer.signSync({ ...aliceUnsigned, clientIp: '203.0.113.10' }, 'auth'),
      signer.signSync({ ...aliceUnsigned, fingerprint: null }, 'auth'),
    ];
    expect(new Set([first, ...others]).size).toBe(6);
  });

  it('when a request id is given, then it is signed into a token of its own, never reused', async () => {
    const { signer, verifier } = await withClock({ reuseMs: 5000 });
    const first = signer.signSync(alice, 'auth');
    const second = signer.signSync({ ...alice, requestId: 'req-9' }, 'auth');
    expect(second).not.toBe(first);
    expect(verifier.verifySync(second).requestId).toBe('req-9');
  });

  it('when no request id is given, then the token carries none and verifies with an empty one', async () => {
    const { signer, verifier } = await withClock({ reuseMs: 5000 });
    const token = signer.signSync(aliceUnsigned, 'auth');
    const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    expect(payload.rid).toBeUndefined();
    expect(verifier.verifySync(token)).toEqual({ ...alice, requestId: '' });
  });

  it('when more identities are signed than the bound, then the oldest are forgotten', async () => {
    const { signer } = await withClock({ reuseMs: 5000, maxEntries: 2 });
    const a = signer.signSync({ ...aliceUnsigned, sessionId: 'a' }, 'auth');
    signer.signSync({ ...aliceUnsigned, sessionId: 'b' }, 'auth');
    signer.signSync({ ...aliceUnsigned, sessionId: 'c' }, 'auth');
    expect(signer['reused'].size).toBe(2);
    // A fresh signature of the same claims in the same second is the same text (Ed25519 is deterministic).
    expect(signer.signSync({ ...aliceUnsigned, sessionId: 'a' }, 'auth')).toBe(a);
    expect(signer['reused'].size).toBe(2);
  });
});

describe('IdentityVerifier cache', () => {
  it('when a token verified once is seen again, then it verifies from the cache with the same identity', async () => {
    const { signer, verifier } = await withClock();
    const token = signer.signSync(alice, 'auth');
    expect(verifier.verifySync(token)).toEqual(alice);
    expect(verifier.cachedCount).toBe(1);
    expect(verifier.verifySync(token)).toEqual(alice);
    expect(verifier.cachedCount).toBe(1);
  });

  it('when a caller changes the identity it got, then the cached one is unchanged', async () => {
    const { signer, verifier } = await withClock();
    const token = signer.signSync(aliceUnsigned, 'auth');
    verifier.verifySync(token).requestId = 'req-of-one-request';
    expect(verifier.verifySync(token).requestId).toBe('');
  });

  it('when a cached token expires, then it is a 401 on the next use and leaves the cache', async () => {
    const { clock, signer, verifier } = await withClock();
    const token = signer.signSync(alice, 'auth');
    expect(verifier.verifySync(token)).toEqual(alice);

    clock.now += (IDENTITY_TTL_SECONDS + 5) * 1000;
    await expectUnauthorized(verifier.verify(token));
    expect(verifier.cachedCount).toBe(0);
  });

  it('when a token fails, then it is not cached, and a forgery of a cached token still fails', async () => {
    const { signer, verifier } = await withClock();
    const token = signer.signSync(alice, 'auth');
    verifier.verifySync(token);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: '1' })).toString('base64url')}.${signature}`;

    await expectUnauthorized(verifier.verify(forged));
    await expectUnauthorized(verifier.verify(forged));
    await expectUnauthorized(verifier.verify(await signer.sign(alice, 'billing')));
    expect(verifier.cachedCount).toBe(1);
  });

  it('when more tokens verify than the bound, then the oldest are dropped and still verify the long way', async () => {
    const { signer, verifier } = await withClock({}, 2);
    const tokens = ['a', 'b', 'c'].map((sessionId) => signer.signSync({ ...alice, sessionId }, 'auth'));
    for (const token of tokens) verifier.verifySync(token);
    expect(verifier.cachedCount).toBe(2);
    expect(verifier.verifySync(tokens[0]!).sessionId).toBe('a');
    expect(verifier.cachedCount).toBe(2);
  });

  it('when the bound is 0, then nothing is cached', async () => {
    const { signer, verifier } = await withClock({}, 0);
    const token = signer.signSync(alice, 'auth');
    expect(verifier.verifySync(token)).toEqual(alice);
    expect(verifier.cachedCount).toBe(0);
  });
});
