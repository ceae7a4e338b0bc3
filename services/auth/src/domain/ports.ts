import type { DomainEvent } from '@kith/platform';
import type { RenderedMail } from '../delivery/mail.templates.js';

/** Who may send the user friend requests. */
export interface FriendSourceFlags {
  all: boolean;
  mutual_friends: boolean;
  mutual_guilds: boolean;
}

/** An account as the service keeps it. Snowflakes and 64-bit bitfields are decimal strings. */
export interface UserRow {
  id: string;
  username: string;
  discriminator: string;
  global_name: string | null;
  email: string | null;
  phone: string | null;
  password_hash: string | null;
  /** `YYYY-MM-DD`. */
  date_of_birth: string | null;
  avatar: string | null;
  bio: string;
  locale: string;
  theme: string;
  flags: string;
  public_flags: string;
  verified: boolean;
  bot: boolean;
  mfa_enabled: boolean;
  /** SMS codes count as a second factor; only alongside TOTP and a phone. */
  sms_mfa_enabled: boolean;
  /** The user has at least one WebAuthn credential. */
  webauthn_enabled: boolean;
  premium_type: number;
  promotional_email_opt_in: boolean;
  friend_source_flags: FriendSourceFlags;
  created_at: Date;
  disabled_at: Date | null;
  deleted_at: Date | null;
  /** Standing (migration 0012); absent in rows made by tests that predate it. */
  suspended_at?: Date | null;
  locked_at?: Date | null;
  password_update_required?: boolean;
}

/** What anyone may see of a user: the partial user object's columns. */
export type PublicUserRow = Pick<UserRow, 'id' | 'username' | 'discriminator' | 'global_name' | 'avatar' | 'public_flags' | 'bot' | 'bio'>;

/** A new account; what is left out takes the store's defaults. */
export type NewUser = Pick<
  UserRow,
  'id' | 'username' | 'global_name' | 'email' | 'phone' | 'password_hash' | 'date_of_birth' | 'avatar' | 'disabled_at' | 'deleted_at'
> &
  Partial<Pick<UserRow, 'promotional_email_opt_in' | 'bot' | 'discriminator'>>;

/** Which unique key a write collided with. */
export type UniqueField = 'username' | 'email' | 'phone';

/** A bot's name and discriminator are another bot's already. */
export class DuplicateBotTagError extends Error {
  constructor() {
    super('duplicate bot tag');
  }
}

export class DuplicateUserError extends Error {
  constructor(readonly fields: UniqueField[]) {
    super(`duplicate ${fields.join(', ')}`);
  }
}

/** The snowflake was minted by another process too (same worker bits, same millisecond). */
export class DuplicateIdError extends Error {
  constructor() {
    super('duplicate user id');
  }
}

/** The accounts table, read and inserted. */
export interface UsersPort {
  /** Inserts a user; a collision on username, email or phone is a DuplicateUserError, on the id a DuplicateIdError. */
  insert(user: NewUser): Promise<UserRow>;
  /** Which of these unique values are already taken (case-insensitive). */
  taken(values: { username?: string | undefined; email?: string | undefined }): Promise<UniqueField[]>;
  findById(id: string): Promise<UserRow | undefined>;
  findManyByIds(ids: string[]): Promise<PublicUserRow[]>;
  findByUsername(username: string): Promise<UserRow | undefined>;
  findByEmail(email: string): Promise<UserRow | undefined>;
  findByPhone(phone: string): Promise<UserRow | undefined>;
}

export interface AccountPatch {
  username?: string | undefined;
  global_name?: string | null | undefined;
  email?: string | undefined;
  password_hash?: string | undefined;
}

/** Account changes; each announces the user (USER_UPDATE) in its own transaction. */
export interface AccountWrites {
  /** Applies the patch; a unique collision is a DuplicateUserError. */
  update(userId: string, patch: AccountPatch): Promise<UserRow>;
  disable(userId: string): Promise<void>;
  scheduleDeletion(userId: string): Promise<void>;
  restore(userId: string): Promise<void>;
}

/** A stored session. */
export interface SessionRow {
  id: string;
  id_hash: string;
  user_id: string;
  token_hash: Buffer;
  created_at: Date;
  last_used_at: Date;
  expires_at: Date;
  client_os: string | null;
  client_platform: string | null;
  client_location: string | null;
  client_ip: string | null;
  revoked_at: Date | null;
}

export type NewSession = Omit<SessionRow, 'created_at'>;

/** A live session with the account fields token validation needs. */
export interface ActiveSession {
  id: string;
  user_id: string;
  last_used_at: Date;
  flags: string;
  bot: boolean;
}

/** A session that a revocation ended: its id for the edge and sockets, its hash for clients. */
export interface RevokedSession {
  id: string;
  id_hash: string;
}

/** The writes that end sessions, and the outbox their events go to, inside one transaction. */
export interface SessionsTransaction {
  /** Revokes the given live sessions of one user; returns those actually revoked. */
  revokeByHashes(userId: string, idHashes: string[]): Promise<RevokedSession[]>;
  /** Revokes one session; undefined when it was already revoked. */
  revoke(sessionId: string): Promise<RevokedSession | undefined>;
  /** Revokes every live session of the user (a bot's tokens, when a new one is issued). */
  revokeAllOf(userId: string): Promise<RevokedSession[]>;
  /** Adds a session with no network source (a bot's token, issued to its developer). */
  insert(session: NewSession): Promise<void>;
  /** Drops the user's registrations of these device push tokens (Logout names the device's). */
  forgetPushTokens(userId: string, tokens: { provider: string; token: string }[]): Promise<void>;
  /** Written only if the transaction commits, and then published. */
  enqueue(events: DomainEvent[]): Promise<void>;
}

export interface SessionsPort {
  /** Runs `work` in one transaction: its revocations and its events commit together or not at all. */
  transaction<T>(work: (tx: SessionsTransaction) => Promise<T>): Promise<T>;
  /** Adds the session and makes its network source known for the account. */
  insert(session: NewSession, source: string): Promise<void>;
  /** The unrevoked, unexpired session a token hash belongs to, of a live account. */
  findActiveByTokenHash(tokenHash: Buffer): Promise<ActiveSession | undefined>;
  /** Records use: last-used time slides the idle expiry forward. */
  touch(id: string, at: Date, expiresAt: Date, clientIp: string | null): Promise<void>;
  listActive(userId: string, limit: number): Promise<SessionRow[]>;
}

export interface StoredSettings {
  locale: string;
  theme: string;
  friend_source_flags: FriendSourceFlags;
  friend_discovery_flags: number;
}

export interface SettingsPort {
  get(userId: string): Promise<StoredSettings | undefined>;
  /** Changing the locale (a user object field) announces the user with the change. */
  update(userId: string, changes: Partial<StoredSettings>): Promise<StoredSettings | undefined>;
}

/** Short-lived single-use values (codes, tokens, grants, challenges), under the service's Redis prefix. */
export interface OneTimeValues {
  put(key: string, value: string, ttlMs: number): Promise<void>;
  get(key: string): Promise<string | null>;
  /** Reads and deletes at once: of two concurrent takers only one gets the value. */
  take(key: string): Promise<string | null>;
  /**
   * Takes the value and deletes `groupKey` with it, at once: null when either is gone, so of the
   * values sharing a group only the first taken is ever taken.
   */
  takeFromGroup(key: string, groupKey: string): Promise<string | null>;
  delete(key: string): Promise<void>;
}

export interface WindowCount {
  count: number;
  /** Until the window closes; 0 for a window not open. */
  resetAfterMs: number;
}

/** Fixed-window counters: the window opens at a key's first hit and closes `windowMs` later. */
export interface Windows {
  /** Counts one hit; answers the count and the time left. */
  hit(key: string, windowMs: number): Promise<WindowCount>;
  /** Reads without counting. */
  peek(key: string): Promise<WindowCount>;
  /** Gives back one hit of a window still open (a use that turned out not to count). */
  release(key: string): Promise<void>;
}

/** How a lockout grows: free attempts, then one attempt per delay, each delay twice the last. */
export interface BackoffPolicy {
  /** Attempts allowed before the first delay. */
  threshold: number;
  baseMs: number;
  maxMs: number;
  /** How long the counter is remembered after its last attempt. */
  memoryMs: number;
}

export interface BackoffAttempt {
  /** 0 when the attempt may go ahead; otherwise how long until one may. */
  waitMs: number;
  /** Attempts counted so far, this one included when it went ahead or first crossed the threshold. */
  count: number;
}

/** Progressive lockout counters. */
export interface Backoffs {
  /** Counts one attempt unless a delay is running; the first attempt past the threshold starts one. */
  attempt(key: string, policy: BackoffPolicy): Promise<BackoffAttempt>;
  /** Gives back an attempt that went ahead (it succeeded, or another limit refused it). */
  release(key: string): Promise<void>;
  clear(key: string): Promise<void>;
}

/** The places (network sources) each account has signed in from. */
export interface KnownSources {
  knows(userId: string, source: string): Promise<boolean>;
  /** Forgets every place but `keep` (after the owner proved themselves by mail or phone). */
  forgetAllBut(userId: string, keep: string): Promise<void>;
}

/** Sends one rendered mail; rejects when the server did not accept it. */
export interface MailSender {
  send(to: string, mail: RenderedMail): Promise<void>;
  close(): Promise<void>;
}

/** Sends one text message; rejects when the provider did not accept it. */
export interface SmsSender {
  send(to: string, body: string): Promise<void>;
}
