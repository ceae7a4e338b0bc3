#!/usr/bin/env node
// Prints a fresh Ed25519 key pair for the gateway-signed internal identity tokens, as lines of a
// dotenv file (docker compose reads it as `.env`): `node scripts/gen-internal-keys.mjs > .env`.
import { generateKeyPairSync } from 'node:crypto';

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const quote = (pem) => JSON.stringify(pem);
process.stdout.write(
  `KITH_INTERNAL_TOKEN_PUBLIC_KEY=${quote(publicKey.export({ type: 'spki', format: 'pem' }))}\n` +
    `KITH_INTERNAL_TOKEN_PRIVATE_KEY=${quote(privateKey.export({ type: 'pkcs8', format: 'pem' }))}\n`,
);
