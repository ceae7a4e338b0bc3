import type { SessionRequest, SessionsService } from '../sessions.service.js';
import type { ElevationGuard, ElevationProof } from './elevation.js';
import type { EnableTotpInput, MfaService } from './mfa.service.js';
import { rotateSessions } from './session-rotation.js';

/**
 * The enrollment endpoints: each credential change answers a new token for the caller and ends
 * every other session, as the platform does; the sensitive ones need elevation first.
 */
export class MfaEnrollment {
  constructor(
    private readonly mfa: MfaService,
    private readonly guard: ElevationGuard,
    private readonly sessions: SessionsService,
  ) {}

  async enableTotp(userId: string, input: EnableTotpInput, request: SessionRequest) {
    const backupCodes = await this.mfa.enableTotp(userId, input);
    const { token, revoked } = await rotateSessions(this.sessions, userId, request);
    return { token, backup_codes: backupCodes, revoked };
  }

  async disableTotp(userId: string, proof: ElevationProof, request: SessionRequest) {
    await this.guard.require(userId, proof);
    await this.mfa.disableTotp(userId);
    return rotateSessions(this.sessions, userId, request);
  }

  /**
   * Deviation: the platform gates this on a nonce plus a key mailed by "Send Backup Codes
   * Challenge"; here elevation (`/mfa/finish`) is the gate and `key`/`nonce` are accepted unused.
   */
  async backupCodes(userId: string, regenerate: boolean, proof: ElevationProof) {
    await this.guard.require(userId, proof);
    return { backup_codes: await this.mfa.backupCodes(userId, regenerate) };
  }
}
