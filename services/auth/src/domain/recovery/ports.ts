import type { UserRow } from '../ports.js';

export interface RevertChanges {
  email: string;
  passwordHash: string;
}

/** Known login locations, phone history and blacklist, and the writes of resets and reverts. */
export interface RecoveryStorePort {
  knowsLocation(userId: string, country: string): Promise<boolean>;
  addLocation(userId: string, country: string): Promise<void>;
  isBlacklisted(phone: string): Promise<boolean>;
  setPassword(userId: string, passwordHash: string): Promise<void>;
  /**
   * Restores the email, sets the password, removes MFA and every phone (blacklisting each number
   * the account ever had), all or nothing. The original email taken by another account since is a
   * DuplicateUserError.
   */
  revert(userId: string, changes: RevertChanges): Promise<UserRow>;
  /** Whether the original email now belongs to another account (the revert then fails). */
  emailTakenByOther(email: string, userId: string): Promise<boolean>;
}
