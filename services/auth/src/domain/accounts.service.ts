import { ApiError, OverloadedError, type SnowflakeGenerator } from '@kith/platform';
import type { SessionsService, SessionRequest } from './sessions.service.js';
import { loginSettings, requiredActionsOf } from './user.view.js';
import type { MfaLoginChallenge } from './mfa/login-mfa.js';
import type { LoginLimits } from './login-limits.js';
import type { PasswordHasher } from './passwords.js';
import { DuplicateIdError, DuplicateUserError, type NewUser, type UniqueField, type UserRow, type UsersPort } from './ports.js';

export interface RegisterInput {
  username?: string;
  global_name?: string | null;
  email?: string;
  password?: string;
  date_of_birth?: string;
  promotional_email_opt_in?: boolean;
  consent?: boolean;
  /** From a verified phone (registration helpers); the account's phone instead of, or with, an email. */
  phone_token?: string;
  /** A fingerprint we issued; the account then takes its snowflake. */
  fingerprint?: string;
  /** An invite code the new account accepts once it exists. */
  invite?: string | null;
}

/** Accepts an invite for a new account (registration's `invite`) over the invites service; never throws. */
export interface InviteRedeemer {
  /** Accepts the invite for the new account; true when it joined a guild whose member verification form it must see. */
  redeem(code: string, userId: string): Promise<boolean>;
}

/** What the registration helpers grant or forbid: consent by country, a verified phone, a fingerprint's id. */
export interface RegistrationChecks {
  /** Throws the form error for what the caller may not do; answers what it may. */
  admit(input: RegisterInput, clientIp: string): Promise<Admission>;
}

export interface Admission {
  id?: string;
  phone?: string;
  /** Spends the single-use grants once the account exists. */
  settle(): Promise<void>;
}

export interface LoginInput {
  login: string;
  password: string;
  /** Restores a disabled account or one scheduled for deletion. */
  undelete?: boolean | undefined;
}

/** The second factor of a login, and restoring accounts on `undelete` (the MFA and account modules). */
export interface LoginExtensions {
  challenge(user: UserRow, undelete: boolean, requiredActions?: string[]): Promise<MfaLoginChallenge>;
  restore(userId: string): Promise<void>;
  /** Login limits (429) per network, per login and network, and per login from unknown networks, before the password hash. */
  limits?: Pick<LoginLimits, 'attempt'>;
  /** The new-location check of password logins without MFA, and the locations registration makes known. */
  locations?: {
    check(user: UserRow, clientIp: string, login: string): Promise<void>;
    record(userId: string, clientIp: string): Promise<void>;
  };
  /** Account standing: refuses suspended and locked accounts their way, and names required actions. */
  standing?: {
    admit(user: UserRow, password: string | undefined): Promise<string[]>;
    passwordActions(password: string | undefined): string[];
  };
}

const DUPLICATE_ERRORS: Record<UniqueField, { code: string; message: string }> = {
  username: {
    code: 'USERNAME_ALREADY_TAKEN',
    message: 'Username is unavailable. Try adding numbers, letters, underscores _ , or periods.',
  },
  email: { code: 'EMAIL_ALREADY_REGISTERED', message: 'Email is already registered.' },
  phone: { code: 'PHONE_ALREADY_REGISTERED', message: 'Phone number is already registered.' },
};

const INVALID_LOGIN = { code: 'INVALID_LOGIN', message: 'Login or password is invalid.' };

/** Registration, password login and the account read right after it. */
export class AccountsService {
  constructor(
    private readonly users: UsersPort,
    private readonly sessions: SessionsService,
    private readonly passwords: PasswordHasher,
    private readonly ids: SnowflakeGenerator,
    private readonly extensions?: LoginExtensions,
    private readonly registration?: RegistrationChecks,
    private readonly invites?: InviteRedeemer,
  ) {}

  async register(input: RegisterInput, request: SessionRequest): Promise<{ token: string; userId: string; showVerificationForm: boolean }> {
    const admission = await this.registration?.admit(input, request.clientIp);
    const username = input.username ?? (await this.suggestUsername(input.global_name ?? 'user'));
    // Ask first so both collisions are reported together; the unique indexes still settle races.
    const taken = await this.users.taken({ username, email: input.email });
    if (taken.length) throw duplicateError(taken);
    const passwordHash = input.password ? await this.passwords.hash(input.password) : null;
    const user = await this.insertUser(
      {
        username,
        global_name: input.global_name ?? null,
        email: input.email ?? null,
        phone: admission?.phone ?? null,
        password_hash: passwordHash,
        date_of_birth: input.date_of_birth ?? null,
        avatar: null,
        disabled_at: null,
        deleted_at: null,
        ...(input.promotional_email_opt_in !== undefined ? { promotional_email_opt_in: input.promotional_email_opt_in } : {}),
      },
      admission?.id,
    );
    await admission?.settle();
    await this.extensions?.locations?.record(user.id, request.clientIp);
    const { token } = await this.sessions.create(user.id, request);
    // A bad or used-up code does not undo the registration: the account stands without the join.
    const showVerificationForm = input.invite && this.invites ? await this.invites.redeem(input.invite, user.id) : false;
    return { token, userId: user.id, showVerificationForm };
  }

  async login(input: LoginInput, request: SessionRequest) {
    const user = input.login.startsWith('+') ? await this.users.findByPhone(input.login) : await this.users.findByEmail(input.login);
    const attempt = await this.extensions?.limits?.attempt(input.login, user, request.clientIp);
    const ok = await this.passwords.verify(user?.password_hash ?? null, input.password).catch(async (err: unknown) => {
      // Refused before any check (503): no guess was made, so none is counted.
      if (err instanceof OverloadedError) await attempt?.withdrawn();
      throw err;
    });
    if (!user || !ok) throw ApiError.form({ login: INVALID_LOGIN, password: INVALID_LOGIN });
    await attempt?.succeeded();
    const undelete = Boolean(input.undelete && this.extensions);
    if (user.deleted_at && !undelete) throw ApiError.of('ACCOUNT_SCHEDULED_FOR_DELETION');
    if (user.disabled_at && !undelete) throw ApiError.of('ACCOUNT_DISABLED');
    // With MFA the account is restored, and its standing told (a suspension's 403), only once the
    // second factor passes, as the platform answers Verify MFA Login.
    if (user.mfa_enabled && this.extensions)
      return this.extensions.challenge(user, undelete, this.extensions.standing?.passwordActions(input.password) ?? []);
    const requiredActions = (await this.extensions?.standing?.admit(user, input.password)) ?? [];
    await this.extensions?.locations?.check(user, request.clientIp, input.login);
    if (undelete && (user.deleted_at || user.disabled_at)) await this.extensions?.restore(user.id);
    const { token } = await this.sessions.create(user.id, request);
    return {
      user_id: user.id,
      token,
      user_settings: loginSettings(user),
      ...requiredActionsOf(requiredActions),
    };
  }

  async me(userId: string): Promise<UserRow> {
    const user = await this.users.findById(userId);
    if (!user) throw ApiError.unauthorized();
    return user;
  }

  /**
   * Replicas share snowflake worker bits (each container runs node as PID 1), so two can mint one id
   * in the same millisecond; the loser takes the next id instead of failing the registration.
   */
  private async insertUser(user: Omit<NewUser, 'id'>, preferredId?: string): Promise<UserRow> {
    for (let attempt = 1; ; attempt++) {
      try {
        // A fingerprint's snowflake, when one was admitted; a collision falls back to fresh ids.
        return await this.users.insert({ ...user, id: attempt === 1 && preferredId ? preferredId : this.ids.next() });
      } catch (err) {
        if (err instanceof DuplicateUserError) throw duplicateError(err.fields);
        if (!(err instanceof DuplicateIdError) || attempt >= 3) throw err;
      }
    }
  }

  /** A free username derived from a display name: its allowed characters, then random digits. */
  async suggestUsername(basis: string): Promise<string> {
    const stem =
      basis
        .toLowerCase()
        .replace(/[^a-z0-9_.]/g, '')
        .replace(/\.{2,}/g, '.')
        .slice(0, 24) || 'user';
    for (let attempt = 0; attempt < 10; attempt++) {
      const candidate = attempt === 0 && stem.length >= 2 ? stem : `${stem}${Math.floor(Math.random() * 10 ** Math.min(4 + attempt, 8))}`;
      if ((await this.users.taken({ username: candidate })).length === 0) return candidate.slice(0, 32);
    }
    return `${stem.slice(0, 16)}${Date.now()}`;
  }
}

export function duplicateError(fields: UniqueField[]): ApiError {
  return ApiError.form(Object.fromEntries(fields.map((f) => [f, DUPLICATE_ERRORS[f]])));
}
