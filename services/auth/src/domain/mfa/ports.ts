/** A backup code as stored: its hash for lookups, its sealed form for viewing. */
export interface StoredBackupCode {
  hash: Buffer;
  sealed: string;
}

export interface BackupCodeRow {
  code_sealed: string;
  consumed: boolean;
}

/** TOTP enrollment and backup codes. */
export interface MfaStorePort {
  totpSecret(userId: string): Promise<string | undefined>;
  /** Enrolls the user; false when another request enrolled it first. */
  enableTotp(userId: string, secret: string, codes: StoredBackupCode[]): Promise<boolean>;
  /** Removes TOTP, backup codes and security keys; false when the user had no TOTP. */
  disableTotp(userId: string): Promise<boolean>;
  backupCodes(userId: string): Promise<BackupCodeRow[]>;
  replaceBackupCodes(userId: string, codes: StoredBackupCode[]): Promise<void>;
  /** Marks an unused code used; false when no such unused code exists (single use, race-safe). */
  consumeBackupCode(userId: string, hash: Buffer): Promise<boolean>;
}

/** The TOTP steps each user has already used, so a code works once per step. */
export interface TotpSteps {
  /** True for the first claim of this user's step. */
  claim(userId: string, step: number, ttlSeconds: number): Promise<boolean>;
}

/** What the SMS factor changes on the account: the phone and whether SMS codes count as a factor. */
export interface SmsAccountStore {
  /** Sets the phone; false when another account has the number. */
  setPhone(userId: string, phone: string): Promise<boolean>;
  /** Removes the phone unless SMS MFA is on; false when it is on. */
  removePhone(userId: string): Promise<boolean>;
  /** Turns SMS MFA on when TOTP is on and a phone is set; false otherwise. */
  enableSms(userId: string): Promise<boolean>;
  /** Turns SMS MFA off; false when it was off. */
  disableSms(userId: string): Promise<boolean>;
}

export interface CredentialRow {
  id: string;
  user_id: string;
  cred_id: string;
  public_key: Buffer;
  counter: number;
  transports: string[];
  name: string;
  last_used: Date | null;
}

export interface NewCredential {
  id: string;
  userId: string;
  credId: string;
  publicKey: Buffer;
  counter: number;
  transports: string[];
  name: string;
}

/** What WebAuthn needs stored. */
export interface WebAuthnStorePort {
  list(userId: string): Promise<CredentialRow[]>;
  byCredId(credId: string): Promise<CredentialRow | undefined>;
  /** Adds the credential and marks the user; false when the credential id is taken. */
  insert(credential: NewCredential): Promise<boolean>;
  rename(userId: string, id: string, name: string): Promise<CredentialRow | undefined>;
  /** Removes the credential; false when the user has no such credential. */
  remove(userId: string, id: string): Promise<boolean>;
  /** Compare-and-set of the signature counter (and last use); false when another use moved it first. */
  advance(id: string, from: number, to: number, at: Date): Promise<boolean>;
}
