import { ApiError } from '@kith/platform';
import {
  generateBackupCodes,
  hashBackupCode,
  looksLikeBackupCode,
  normalizeBackupCode,
  openBackupCode,
  sealBackupCode,
} from './backup-codes.js';
import { TOTP_PERIOD_SECONDS, isValidSecret, matchTotp, normalizeSecret } from './totp.js';
import type { MfaStorePort, StoredBackupCode, TotpSteps } from './ports.js';
import type { GuessLimits } from '../guards/guesses.js';
import type { UserRow } from '../ports.js';

/** The I/O MFA needs: enrollment and codes in Postgres, used TOTP steps in Redis, passwords. */
export interface MfaPorts {
  store: MfaStorePort;
  steps: TotpSteps;
  passwords: { verify(hash: string | null, password: string): Promise<boolean> };
  users: { findById(id: string): Promise<UserRow | undefined> };
  /** The account-wide limits on guesses at a second factor and at the password; none in some unit tests. */
  guesses?: Pick<GuessLimits, 'guess'>;
  now?: () => number;
}

/** A factor a user proves with a code: the MFA types of the platform that this service checks so far. */
export type CodeFactor = 'totp' | 'backup' | 'password';

export interface BackupCodeView {
  user_id: string;
  code: string;
  consumed: boolean;
}

export interface EnableTotpInput {
  password?: string | undefined;
  secret?: string | undefined;
  code?: string | undefined;
}

/** Long enough that a step stays claimed until no window can accept its code again. */
const STEP_MEMORY_SECONDS = TOTP_PERIOD_SECONDS * 4;

/** TOTP enrollment, backup codes, and checking a code of either kind. */
export class MfaService {
  private readonly now: () => number;

  constructor(private readonly ports: MfaPorts) {
    this.now = ports.now ?? Date.now;
  }

  async user(userId: string): Promise<UserRow> {
    const user = await this.ports.users.findById(userId);
    if (!user) throw ApiError.unauthorized();
    return user;
  }

  /** The platform's enrollment: password first (60005 prompts the client for a secret), then secret and code. */
  async enableTotp(userId: string, input: EnableTotpInput): Promise<BackupCodeView[]> {
    const user = await this.user(userId);
    if (user.mfa_enabled) throw ApiError.of('MFA_ALREADY_ENABLED');
    await this.checkPassword(user, input.password);
    if (!input.secret || !isValidSecret(input.secret)) throw ApiError.of('MFA_INVALID_SECRET');
    const secret = normalizeSecret(input.secret);
    const step = input.code ? matchTotp(secret, input.code, this.now()) : undefined;
    if (step === undefined || !(await this.ports.steps.claim(userId, step, STEP_MEMORY_SECONDS))) throw ApiError.of('MFA_INVALID_CODE');
    const codes = generateBackupCodes();
    if (!(await this.ports.store.enableTotp(userId, secret, this.stored(codes, secret, userId)))) throw ApiError.of('MFA_ALREADY_ENABLED');
    return codes.map((code) => ({ user_id: userId, code, consumed: false }));
  }

  async disableTotp(userId: string): Promise<void> {
    if (!(await this.ports.store.disableTotp(userId))) throw ApiError.of('MFA_NOT_ENABLED');
  }

  /** The codes as they stand, or ten new ones in their place. */
  async backupCodes(userId: string, regenerate: boolean): Promise<BackupCodeView[]> {
    const secret = await this.ports.store.totpSecret(userId);
    if (!secret) throw ApiError.of('MFA_NOT_ENABLED');
    if (regenerate) {
      const codes = generateBackupCodes();
      await this.ports.store.replaceBackupCodes(userId, this.stored(codes, secret, userId));
      return codes.map((code) => ({ user_id: userId, code, consumed: false }));
    }
    const rows = await this.ports.store.backupCodes(userId);
    return rows.map((r) => ({ user_id: userId, code: openBackupCode(r.code_sealed, secret, userId), consumed: r.consumed }));
  }

  /**
   * Whether the code proves the factor; a TOTP code counts once per step, a backup code once. Each
   * call is a guess under the account's limit (429 once it is spent, before the code is looked at).
   */
  async verify(user: UserRow, factor: CodeFactor, code: string): Promise<boolean> {
    switch (factor) {
      case 'password':
        // Offered only to users without a second factor; for the others it would be a downgrade.
        return !user.mfa_enabled && (await this.passwordMatches(user, code));
      case 'backup':
        return this.guessSecondFactor(user, () => this.verifyBackup(user.id, code));
      case 'totp':
        return this.guessSecondFactor(user, () =>
          looksLikeBackupCode(code) ? this.verifyBackup(user.id, code) : this.verifyTotp(user.id, code),
        );
    }
  }

  /** A second factor another module checks (an SMS code, a security key), under the same limit as codes. */
  guessSecondFactor(user: UserRow, check: () => Promise<boolean>): Promise<boolean> {
    return this.ports.guesses ? this.ports.guesses.guess('second-factor', user, check) : check();
  }

  /** The password confirmed behind a signed-in session: a guess under the account's password limit. */
  passwordMatches(user: UserRow, password: string): Promise<boolean> {
    const check = () => this.ports.passwords.verify(user.password_hash, password);
    return this.ports.guesses ? this.ports.guesses.guess('password', user, check) : check();
  }

  async checkPassword(user: UserRow, password: string | undefined): Promise<void> {
    if (!password || !(await this.passwordMatches(user, password))) throw ApiError.of('PASSWORD_MISMATCH');
  }

  private async verifyTotp(userId: string, code: string): Promise<boolean> {
    const secret = await this.ports.store.totpSecret(userId);
    const step = secret ? matchTotp(secret, code, this.now()) : undefined;
    return step !== undefined && (await this.ports.steps.claim(userId, step, STEP_MEMORY_SECONDS));
  }

  private async verifyBackup(userId: string, code: string): Promise<boolean> {
    if (!looksLikeBackupCode(code)) return false;
    return this.ports.store.consumeBackupCode(userId, hashBackupCode(normalizeBackupCode(code)));
  }

  private stored(codes: string[], secret: string, userId: string): StoredBackupCode[] {
    return codes.map((code) => ({ hash: hashBackupCode(code), sealed: sealBackupCode(code, secret, userId) }));
  }
}
