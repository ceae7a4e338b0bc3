import { SignJWT, importPKCS8, importSPKI, jwtVerify, type CryptoKey, type KeyObject } from 'jose';
import { ApiError } from './errors.js';

/** The header that carries the gateway-signed identity. The gateway strips any client-sent copy. */
export const INTERNAL_IDENTITY_HEADER = 'x-internal-identity';
const ISSUER = 'kith-gateway';
const ALG = 'EdDSA';
/** Short-lived: a leaked token is worthless within a minute. */
export const IDENTITY_TTL_SECONDS = 30;

/** Who is calling, as the gateway established it. An anonymous request has no user. */
export interface Identity {
  userId: string | null;
  sessionId: string | null;
  clientIp: string;
  requestId: string;
  fingerprint: string | null;
}

type Key = CryptoKey | KeyObject;

export class IdentitySigner {
  private constructor(private readonly key: Key) {}

  static async fromPem(privateKeyPem: string): Promise<IdentitySigner> {
    return new IdentitySigner(await importPKCS8(privateKeyPem, ALG));
  }

  /** Signs the identity for one request to one service (audience = the service's name). */
  sign(identity: Identity, audience: string): Promise<string> {
    const claims: Record<string, string> = { ip: identity.clientIp, rid: identity.requestId };
    if (identity.sessionId) claims.sid = identity.sessionId;
    if (identity.fingerprint) claims.fp = identity.fingerprint;
    const jwt = new SignJWT(claims)
      .setProtectedHeader({ alg: ALG })
      .setIssuer(ISSUER)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime(`${IDENTITY_TTL_SECONDS}s`);
    if (identity.userId) jwt.setSubject(identity.userId);
    return jwt.sign(this.key);
  }
}

export class IdentityVerifier {
  private constructor(
    private readonly key: Key,
    private readonly audience: string,
  ) {}

  static async fromPem(publicKeyPem: string, audience: string): Promise<IdentityVerifier> {
    return new IdentityVerifier(await importSPKI(publicKeyPem, ALG), audience);
  }

  /** The identity in a signed token; a missing, forged, expired or misaddressed token is a 401. */
  async verify(token: string | undefined): Promise<Identity> {
    if (!token) throw ApiError.unauthorized();
    try {
      const { payload } = await jwtVerify(token, this.key, {
        issuer: ISSUER,
        audience: this.audience,
        algorithms: [ALG],
        maxTokenAge: `${IDENTITY_TTL_SECONDS + 5}s`,
      });
      return {
        userId: typeof payload.sub === 'string' ? payload.sub : null,
        sessionId: typeof payload.sid === 'string' ? payload.sid : null,
        clientIp: typeof payload.ip === 'string' ? payload.ip : '',
        requestId: typeof payload.rid === 'string' ? payload.rid : '',
        fingerprint: typeof payload.fp === 'string' ? payload.fp : null,
      };
    } catch {
      throw ApiError.unauthorized();
    }
  }
}
