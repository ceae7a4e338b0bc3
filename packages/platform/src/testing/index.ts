import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { IdentitySigner, type Identity } from '../identity.js';
import { ApiError } from '../errors.js';
import { configureServiceCalls } from '../service-calls.js';
import type { ContractUser } from '../users.js';

export { resolveTestStores, type TestStores } from './stores.js';
export { testDbPrefix } from './db-prefix.js';

/** A throwaway Ed25519 pair for the internal identity tokens of one test file. */
export function testKeys(): { publicKey: string; privateKey: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return {
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

let serviceKey: string | undefined;

/**
 * The gRPC service key of this test process (made on first use, and taken by the process): a child
 * process the test starts (a service replica it will SIGKILL) needs it as SERVICE_TOKEN_KEY to call
 * this process's services and to take their calls.
 */
export function testServiceKey(): string {
  if (!serviceKey) {
    serviceKey = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    configureServiceCalls(serviceKey, 'tests');
  }
  return serviceKey;
}

/** Signs identities the way the gateway does, for calling a service directly in its tests. */
export async function testSigner(privateKey: string) {
  const signer = await IdentitySigner.fromPem(privateKey);
  return (audience: string, identity: Partial<Identity> = {}) =>
    signer.sign(
      { userId: null, sessionId: null, clientIp: '127.0.0.1', requestId: randomBytes(8).toString('hex'), fingerprint: null, ...identity },
      audience,
    );
}

/** A name no other test (or earlier run) has used: for usernames, emails, subjects, databases. */
export const unique = (prefix = 't'): string => `${prefix}${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;
export { readStoredEvents, type StoredEvent } from './events.js';
export { TestNatsServer } from './nats-server.js';

/** A user as auth's GetUsers answers one, for fakes of the user directory. */
export const contractUser = (id: string, username: string, extra: Partial<ContractUser> = {}): ContractUser => ({
  id,
  username,
  discriminator: '0',
  publicFlags: 0n,
  bot: false,
  ...extra,
});
export { OTLP_SPAN_KIND, startOtlpCollector, tracesMentioning, type CollectedSpan, type OtlpCollector } from './otlp-collector.js';

/** The platform error code a call fails with, or 'ok'; anything but an ApiError is rethrown (the test fails). */
export async function errorCodeOf(promise: Promise<unknown>): Promise<number | 'ok'> {
  try {
    await promise;
    return 'ok';
  } catch (err) {
    if (err instanceof ApiError) return err.body.code;
    throw err;
  }
}

/**
 * Polls `check` every `everyMs` until it holds (an event consumer's or a sweeper's effect), at
 * most `tries` times; throws when it never does.
 */
export async function eventually(check: () => Promise<boolean>, { tries = 100, everyMs = 100 } = {}): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  throw new Error('condition never held');
}
