import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Provider tokens at rest: AES-256-GCM, a fresh 96-bit nonce each, `v1.<nonce>.<tag>.<ciphertext>`
 * in base64url. A row read with another key (or altered) does not open: the connection then
 * counts as revoked, as a token the provider refused would.
 */
export class TokenSealer {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the token sealing key must be 32 bytes');
  }

  /** CONNECTION_TOKEN_KEY (base64, 32 bytes), else one derived from the deployment's service key, else this process's own. */
  static fromConfig(connectionKey: string | undefined, serviceKey: string | undefined): TokenSealer {
    if (connectionKey) return new TokenSealer(Buffer.from(connectionKey, 'base64'));
    if (serviceKey) return new TokenSealer(Buffer.from(hkdfSync('sha256', serviceKey, 'kith', 'integrations connection tokens', 32)));
    return new TokenSealer(randomBytes(32));
  }

  seal(plain: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', nonce, cipher.getAuthTag(), body].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
  }

  open(sealed: string): string | null {
    const [version, nonce, tag, body] = sealed.split('.');
    if (version !== 'v1' || !nonce || !tag || body === undefined) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(nonce, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}
