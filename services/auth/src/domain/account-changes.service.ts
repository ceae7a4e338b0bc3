import { ApiError } from '@kith/platform';
import { duplicateError } from './accounts.service.js';
import type { ElevationGuard, ElevationProof } from './mfa/elevation.js';
import { endSessions, rotateSessions } from './mfa/session-rotation.js';
import { PASSWORD_BAD_LENGTH, passwordLengthOk } from './password-rule.js';
import type { PasswordHasher } from './passwords.js';
import type { SessionRequest, SessionsService } from './sessions.service.js';
import { type AccountPatch, type AccountWrites, DuplicateUserError, type UserRow, type UsersPort } from './ports.js';

export interface ModifyUserInput {
  username?: string | undefined;
  global_name?: string | null | undefined;
  email?: string | undefined;
  password?: string | undefined;
  new_password?: string | undefined;
}

const PASSWORD_REQUIRED = { code: 'BASE_TYPE_REQUIRED', message: 'This field is required' };
const PASSWORD_WRONG = { code: 'PASSWORD_DOES_NOT_MATCH', message: 'Password does not match.' };

/** A password being set (a claim's `password` is not checked by the form's new-password rule). */
function checkNewPassword(password: string): void {
  if (!passwordLengthOk(password)) throw ApiError.form({ password: PASSWORD_BAD_LENGTH });
}

const sameIgnoringCase = (a: string | null, b: string | undefined): boolean => b === undefined || a?.toLowerCase() === b.toLowerCase();

/** `PATCH /users/@me`, disabling and scheduling deletion: the password and, where due, elevation. */
export class AccountChangesService {
  constructor(
    private readonly users: Pick<UsersPort, 'findById' | 'taken'>,
    private readonly accounts: AccountWrites,
    private readonly passwords: PasswordHasher,
    /** The password confirmed behind a session, under the account's limit on such guesses. */
    private readonly confirmations: { passwordMatches(user: UserRow, password: string): Promise<boolean> },
    private readonly guard: ElevationGuard,
    private readonly sessions: SessionsService,
    /** After an email change, with the account as it was: mails the old address its revert link. */
    private readonly emailChanged?: (before: UserRow) => Promise<void>,
  ) {}

  /**
   * Username, email and password changes need the current password; email and password also
   * elevation. An account without a password (unclaimed) has none to give: its `password` sets one.
   */
  async modify(userId: string, input: ModifyUserInput, proof: ElevationProof, request: SessionRequest) {
    const user = await this.user(userId);
    const claiming = user.password_hash === null;
    const newUsername = input.username !== undefined && input.username !== user.username;
    const newEmail = input.email !== undefined && input.email !== user.email;
    const passwordToSet = claiming ? (input.new_password ?? input.password) : input.new_password;
    const newPassword = passwordToSet !== undefined;
    if (newEmail || newPassword) await this.guard.require(userId, proof);
    if ((newUsername || newEmail || newPassword) && !claiming) await this.checkPassword(user, input.password);
    if (passwordToSet !== undefined) checkNewPassword(passwordToSet);
    const taken = await this.users.taken({
      ...(sameIgnoringCase(user.username, input.username) ? {} : { username: input.username }),
      ...(sameIgnoringCase(user.email, input.email) ? {} : { email: input.email }),
    });
    if (taken.length) throw duplicateError(taken);
    const patch: AccountPatch = {
      ...(newUsername ? { username: input.username } : {}),
      ...(input.global_name !== undefined ? { global_name: input.global_name } : {}),
      ...(newEmail ? { email: input.email } : {}),
      ...(passwordToSet !== undefined ? { password_hash: await this.passwords.hash(passwordToSet) } : {}),
    };
    const updated = Object.keys(patch).length ? await this.update(userId, patch) : user;
    if (newEmail) await this.emailChanged?.(user);
    if (!newPassword) return { user: updated, revoked: [] as string[] };
    const { token, revoked } = await rotateSessions(this.sessions, userId, request);
    return { user: updated, token, revoked };
  }

  /** Disables the account and ends every session; login then answers 20013 until `undelete`. */
  async disable(userId: string, password: string | null | undefined, proof: ElevationProof): Promise<string[]> {
    await this.confirm(userId, password, proof);
    await this.accounts.disable(userId);
    return endSessions(this.sessions, userId);
  }

  /** Schedules deletion and ends every session; login then answers 20011 until `undelete`. */
  async scheduleDeletion(userId: string, password: string | null | undefined, proof: ElevationProof): Promise<string[]> {
    await this.confirm(userId, password, proof);
    await this.accounts.scheduleDeletion(userId);
    return endSessions(this.sessions, userId);
  }

  private async confirm(userId: string, password: string | null | undefined, proof: ElevationProof): Promise<void> {
    await this.guard.require(userId, proof);
    const user = await this.user(userId);
    // An account without a password (never set one) confirms with elevation alone.
    if (user.password_hash !== null && !(password && (await this.confirmations.passwordMatches(user, password))))
      throw ApiError.of('PASSWORD_MISMATCH');
  }

  private async checkPassword(user: UserRow, password: string | undefined): Promise<void> {
    if (!password) throw ApiError.form({ password: PASSWORD_REQUIRED });
    if (!(await this.confirmations.passwordMatches(user, password))) throw ApiError.form({ password: PASSWORD_WRONG });
  }

  private async update(userId: string, patch: AccountPatch): Promise<UserRow> {
    try {
      return await this.accounts.update(userId, patch);
    } catch (err) {
      if (err instanceof DuplicateUserError) throw duplicateError(err.fields);
      throw err;
    }
  }

  private async user(userId: string): Promise<UserRow> {
    const user = await this.users.findById(userId);
    if (!user) throw ApiError.unauthorized();
    return user;
  }
}
