import { generateKeyPairSync, createPublicKey, type KeyObject } from 'node:crypto';
import { ed25519PrivateKey, readJws, signJws } from './jws.js';

/** The gRPC metadata key a call's token travels in, as `Bearer <token>`. */
export const SERVICE_TOKEN_METADATA = 'authorization';
const ISSUER = 'kith-service';
/** A token lives a minute and is handed out again for half of it, so one arrives with 30 s left at least. */
const TOKEN_TTL_SECONDS = 60;
const REUSE_MS = 30_000;
/** Clock skew allowed between two processes. */
const CLOCK_TOLERANCE_SECONDS = 5;
const MAX_VERIFIED = 10_000;

/**
 * Who may call a service's gRPC API: a process holding the deployment's service key
 * (SERVICE_TOKEN_KEY, an Ed25519 private key every process of the deployment shares; the edge's
 * identity key signs for users and is not it). Each call carries a token signed with it, naming
 * the caller and, as its audience, the gRPC service called (`auth.v1.AuthService`): a process on
 * the same host or network without the key is refused.
 *
 * One per process (`serviceCalls`), set up by `configureServiceCalls` as the process starts; the
 * platform's gRPC client signs with it and its gRPC server checks with it, so no service has code
 * of its own for this. Without a configured key a process makes one of its own: its calls and
 * servers work with each other (tests that run several services in one process), and with no
 * other process, so a deployment that forgot the key fails closed.
 */
export class ServiceCallTokens {
  private key: KeyObject | undefined;
  private publicKey: KeyObject | undefined;
  private caller = 'unnamed';
  private readonly issued = new Map<string, { token: string; at: number }>();
  private readonly verified = new Map<string, { audience: string; exp: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The deployment's key (PKCS8 PEM), or none for a key of this process only; and who this process is. */
  configure(privateKeyPem: string | undefined, caller: string): void {
    const key = privateKeyPem ? ed25519PrivateKey(privateKeyPem) : (this.key ?? generateKeyPairSync('ed25519').privateKey);
    if (key !== this.key) {
      this.key = key;
      this.publicKey = createPublicKey(key);
      this.issued.clear();
      this.verified.clear();
    }
    this.caller = caller;
  }

  /** The token for a call to the gRPC service `audience`. */
  tokenFor(audience: string): string {
    const now = this.now();
    const hit = this.issued.get(audience);
    if (hit && now - hit.at < REUSE_MS && now >= hit.at) return hit.token;
    const iat = Math.floor(now / 1000);
    const token = signJws({ iss: ISSUER, sub: this.caller, aud: audience, iat, exp: iat + TOKEN_TTL_SECONDS }, this.signingKey());
    this.issued.set(audience, { token, at: now });
    return token;
  }

  /** Whether the token was signed with this deployment's key for a call to `audience`, and is current. */
  verify(token: string | undefined, audience: string): boolean {
    if (!token) return false;
    const nowS = Math.floor(this.now() / 1000);
    const hit = this.verified.get(token);
    if (hit) return hit.audience === audience && hit.exp > nowS - CLOCK_TOLERANCE_SECONDS;
    this.signingKey();
    const claims = readJws(token, this.publicKey!);
    if (!claims || claims.iss !== ISSUER || claims.aud !== audience) return false;
    const { iat, exp } = claims;
    if (typeof iat !== 'number' || typeof exp !== 'number') return false;
    if (exp <= nowS - CLOCK_TOLERANCE_SECONDS || iat > nowS + CLOCK_TOLERANCE_SECONDS || exp - iat > TOKEN_TTL_SECONDS) return false;
    if (this.verified.size >= MAX_VERIFIED) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(token, { audience, exp });
    return true;
  }

  private signingKey(): KeyObject {
    if (!this.key) this.configure(undefined, this.caller);
    return this.key!;
  }
}

/** This process's service-call tokens (see ServiceCallTokens). */
export const serviceCalls = new ServiceCallTokens();

/** Sets this process's service key and name before it serves or calls gRPC (startService does it for services). */
export function configureServiceCalls(privateKeyPem: string | undefined, caller: string): void {
  serviceCalls.configure(privateKeyPem, caller);
}
