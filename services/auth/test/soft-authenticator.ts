import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/** Minimal CBOR: unsigned/negative integers, byte and text strings, maps (all WebAuthn needs here). */
type Cbor = number | string | Buffer | Map<number | string, Cbor>;
function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 256) return Buffer.from([(major << 5) | 24, n]);
  const b = Buffer.alloc(3);
  b[0] = (major << 5) | 25;
  b.writeUInt16BE(n, 1);
  return b;
}
export function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  return Buffer.concat([head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

const b64u = (b: Buffer | string): string => Buffer.from(b).toString('base64url');
const sha256 = (b: Buffer | string): Buffer => createHash('sha256').update(b).digest();

export interface Ceremony {
  origin?: string;
  rpId?: string;
  /** Overrides the challenge the server sent (to sign a wrong one). */
  challenge?: string;
  /** Overrides the signature counter (a cloned key repeats an old one). */
  counter?: number;
}

interface PublicKeyOptions {
  challenge: string;
  rpId?: string;
  rp?: { id?: string };
  user?: { id: string };
}

/**
 * A software WebAuthn authenticator: one P-256 credential, attestation "none", hand-built
 * authenticator data, a signature counter that grows by one per assertion. Options in and
 * responses out are the stringified JSON the platform's endpoints carry.
 */
export class SoftAuthenticator {
  readonly credentialId = randomBytes(32);
  counter = 0;
  /** The user handle stored at registration (a discoverable credential returns it). */
  userHandle: string | undefined;
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;

  constructor(
    readonly origin = 'http://localhost:8080',
    readonly rpId = 'localhost',
  ) {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
  }

  get id(): string {
    return b64u(this.credentialId);
  }

  /** navigator.credentials.create() for the stringified creation options; answers the stringified credential. */
  create(optionsJson: string, c: Ceremony = {}): string {
    const options = (JSON.parse(optionsJson) as { publicKey: PublicKeyOptions }).publicKey;
    this.userHandle = options.user?.id;
    const jwk = this.publicKey.export({ format: 'jwk' });
    const cose = cbor(
      new Map<number, Cbor>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, this.credentialId, cose]);
    const authData = this.authData(c.rpId ?? options.rp?.id ?? this.rpId, 0x45, this.counter, attested);
    const clientData = this.clientData('webauthn.create', c.challenge ?? options.challenge, c.origin);
    const attestationObject = cbor(
      new Map<string, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    return JSON.stringify({
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: { clientDataJSON: b64u(clientData), attestationObject: b64u(attestationObject), transports: ['usb'] },
      clientExtensionResults: {},
      authenticatorAttachment: 'cross-platform',
    });
  }

  /** navigator.credentials.get() for the stringified request options; answers the stringified assertion. */
  get(optionsJson: string, c: Ceremony = {}): string {
    const options = (JSON.parse(optionsJson) as { publicKey: PublicKeyOptions }).publicKey;
    this.counter = c.counter ?? this.counter + 1;
    const authData = this.authData(c.rpId ?? options.rpId ?? this.rpId, 0x05, this.counter);
    const clientData = this.clientData('webauthn.get', c.challenge ?? options.challenge, c.origin);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), this.privateKey);
    return JSON.stringify({
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64u(clientData),
        authenticatorData: b64u(authData),
        signature: b64u(signature),
        ...(this.userHandle ? { userHandle: this.userHandle } : {}),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'cross-platform',
    });
  }

  private authData(rpId: string, flags: number, counter: number, attested = Buffer.alloc(0)): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, attested]);
  }

  private clientData(type: string, challenge: string, origin?: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: origin ?? this.origin, crossOrigin: false }));
  }
}
