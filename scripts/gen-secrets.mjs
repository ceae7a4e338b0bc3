#!/usr/bin/env node
// Makes the secrets every replica of a deployment must share, fresh each time:
//   - an Ed25519 key pair for the gateway-signed internal identity tokens (every process verifies
//     with the public key, the gateway signs with the private one);
//   - an Ed25519 private key every process signs its gRPC calls with and checks others' against;
//   - auth's MFA elevation key (HMAC of the 5-minute elevation tokens: any replica checks the
//     tokens any other signed);
//   - the webhooks service's key for the tokens it keeps sealed (AES-256-GCM, 32 bytes), and the
//     secret key of its S3-compatible object store (access key `kith`);
//   - billing's payment gateway key (STRIPE_SECRET_KEY): a test-mode key the development gateway
//     stand-in checks, so billing's key lives in a Secret like a production one does.
//
//   node scripts/gen-secrets.mjs > .env                             # docker compose reads .env
//   node scripts/gen-secrets.mjs --dir deploy/k8s/overlays/dev/secrets   # files for kustomize
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const secrets = {
  'internal-token-public.pem': publicKey.export({ type: 'spki', format: 'pem' }),
  'internal-token-private.pem': privateKey.export({ type: 'pkcs8', format: 'pem' }),
  'service-token.pem': generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }),
  'mfa-elevation-key': randomBytes(48).toString('base64url'),
  'webhook-token-key': randomBytes(32).toString('base64'),
  'object-store-secret-key': randomBytes(24).toString('base64url'),
  'stripe-secret-key': `sk_test_${randomBytes(24).toString('base64url')}`,
};
const envNames = {
  'internal-token-public.pem': 'KITH_INTERNAL_TOKEN_PUBLIC_KEY',
  'internal-token-private.pem': 'KITH_INTERNAL_TOKEN_PRIVATE_KEY',
  'service-token.pem': 'KITH_SERVICE_TOKEN_KEY',
  'mfa-elevation-key': 'KITH_MFA_ELEVATION_KEY',
  'webhook-token-key': 'KITH_WEBHOOK_TOKEN_KEY',
  'object-store-secret-key': 'KITH_OBJECT_STORE_SECRET_KEY',
  'stripe-secret-key': 'KITH_STRIPE_SECRET_KEY',
};

const dirAt = process.argv.indexOf('--dir');
if (dirAt !== -1) {
  const dir = process.argv[dirAt + 1];
  if (!dir) throw new Error('--dir needs a directory');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const [file, value] of Object.entries(secrets)) writeFileSync(join(dir, file), value, { mode: 0o600 });
} else {
  // One double-quoted value per line: compose reads the \n escapes of the PEMs back as newlines.
  for (const [file, value] of Object.entries(secrets)) process.stdout.write(`${envNames[file]}=${JSON.stringify(value)}\n`);
}
