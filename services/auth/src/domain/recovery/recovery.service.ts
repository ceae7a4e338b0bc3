import { ApiError, type Logger } from '@kith/platform';
import { emailChangedMail, passwordResetMail, type RenderedMail } from '../../delivery/mail.templates.js';
import { duplicateError } from '../accounts.service.js';
import type { SmsCodeCheck } from '../mfa/elevation.js';
import { SecondFactors, type OfferedFactors } from '../mfa/factors.js';
import type { MfaService } from '../mfa/mfa.service.js';
import type { WebAuthn } from '../mfa/webauthn.js';
import { endSessions, rotateSessions } from '../mfa/session-rotation.js';
import type { Tickets } from '../mfa/tickets.js';
import type { PasswordHasher } from '../passwords.js';
import { digest } from '../registration/digest.js';
import type { PhoneVerificationService } from '../registration/phone-verification.service.js';
import type { RateLimiter, RateRule } from '../registration/rate-limit.js';
import type { SessionRequest, SessionsService } from '../sessions.service.js';
import { invalidToken, type Grants } from './grants.js';
import type { RecoveryLinks } from './links.js';
import type { LoginLocations } from './locations.js';
import type { LoginLimits } from '../login-limits.js';
import { type MailSender, DuplicateUserError, type UserRow, type UsersPort } from '../ports.js';
import type { RecoveryStorePort } from './ports.js';
import { requiredActionsOf } from '../user.view.js';

export type ResetMethod = 'password_reset' | 'one_time_login';

export interface ResetInput {
  token: string;
  password: string;
  method?: string | null | undefined;
  ticket?: string | null | undefined;
  code?: string | null | undefined;
}

/** The answer of a reset that needs the second factor first: nothing has changed yet. */
export interface ResetMfaRequired extends OfferedFactors {
  user_id: string;
  ticket: string;
  mfa: true;
}

/** A mailed reset or one-time login grant: its user, and the password it was issued under. */
interface UserGrant {
  userId: string;
  /** A digest of the password hash at issue: any password change since ends the grant. */
  stamp: string;
}

const passwordStamp = (user: Pick<UserRow, 'id' | 'password_hash'>): string => digest('password-stamp', user.id, user.password_hash ?? '');

/** The grant's user, if the grant still holds for them (same password as when it was mailed). */
const holderOf = (grant: UserGrant | undefined, user: UserRow | undefined): UserRow | undefined =>
  grant && user && grant.stamp === passwordStamp(user) ? user : undefined;

/** A revert grant is bound to its user and to the address the change took away. */
interface RevertGrant {
  userId: string;
  email: string;
}

export interface RecoveryPorts {
  users: Pick<UsersPort, 'findById' | 'findByEmail' | 'findByPhone'>;
  store: Pick<RecoveryStorePort, 'setPassword' | 'revert' | 'emailTakenByOther'>;
  grants: Grants;
  passwords: PasswordHasher;
  sessions: SessionsService;
  mfa: MfaService;
  tickets: Tickets;
  /** SMS codes for the reset's ticket (`POST /auth/mfa/sms/send`) and security keys: offered as login offers them. */
  smsCodes?: SmsCodeCheck;
  webauthn?: Pick<WebAuthn, 'requestOptions' | 'verify'>;
  mailer: MailSender;
  links: RecoveryLinks;
  locations: Pick<LoginLocations, 'record'>;
  /** A one-time login is a login: suspended and locked accounts get no session from it. */
  standing?: { admit(user: UserRow, password: string | undefined): Promise<string[]> };
  /** Lifts strangers' login lockouts once the owner reset the password. */
  lockouts?: Pick<LoginLimits, 'forgive'>;
  log: Logger;
  /** Reset by phone: the code Forgot Password texts, and the phone token verifying it earns. */
  phones: Pick<PhoneVerificationService, 'sendCode' | 'phoneOf' | 'take'>;
  limiter: Pick<RateLimiter, 'consume'>;
  /** Forgot Password per login string and per client address (429 past either). */
  forgotLimits: { perLogin: RateRule; perIp: RateRule };
}

/** Whose password a reset token resets, and how the token is spent once the reset goes through. */
interface ResetTarget {
  user: UserRow;
  spend(): Promise<boolean>;
}

/** Forgot and reset password, one-time login, and reverting an email change. */
export class RecoveryService {
  private readonly factors: SecondFactors;

  constructor(private readonly ports: RecoveryPorts) {
    this.factors = new SecondFactors({ mfa: ports.mfa, sms: ports.smsCodes, webauthn: ports.webauthn });
  }

  /**
   * Mails the reset link (and, without MFA, a one-time login link) to an existing account. The
   * answer never depends on the mail, and the mail is sent in the background so the timing does not
   * either; an unknown login answers `one_time_login`, as the common account (no MFA) does.
   * A phone number instead gets a code by SMS (when an account has it) and, always, 70007: the
   * client verifies the code (`/phone-verifications/verify`) and resets with the token that earns.
   * The limits count every request, known login or not, so a 429 tells nothing either.
   */
  async forgot(login: string, clientIp: string): Promise<{ method: ResetMethod }> {
    const { users, limiter, forgotLimits } = this.ports;
    await limiter.consume(forgotLimits.perIp, clientIp || 'unknown');
    await limiter.consume(forgotLimits.perLogin, login.trim().toLowerCase());
    if (login.startsWith('+')) {
      const user = await users.findByPhone(login);
      if (user && !user.deleted_at)
        void this.ports.phones.sendCode(login).catch((err: unknown) => this.ports.log.warn({ err: String(err) }, 'reset code text failed'));
      throw ApiError.of('PHONE_VERIFICATION_REQUIRED');
    }
    const user = await users.findByEmail(login);
    if (user?.email && !user.deleted_at) {
      const email = user.email;
      void this.resetMail(user)
        .then((mail) => this.ports.mailer.send(email, mail))
        .catch((err: unknown) => this.ports.log.warn({ err: String(err) }, 'password reset mail failed'));
    }
    return { method: user?.mfa_enabled ? 'password_reset' : 'one_time_login' };
  }

  /**
   * Sets the password with a reset token (the mailed link's, or a phone token of the account's
   * number). With MFA, the first call only answers a ticket bound to the token; the retry with
   * `method`, `ticket` and `code` completes it. Every other session ends.
   */
  async reset(input: ResetInput, request: SessionRequest): Promise<ResetMfaRequired | { token: string; revoked: string[] }> {
    const { tickets, passwords, store, sessions } = this.ports;
    const target = await this.resetTarget(input.token);
    if (!target || target.user.deleted_at) throw invalidToken('token');
    const { user } = target;
    const bound = digest('reset', input.token);
    if (user.mfa_enabled) {
      if (!input.ticket || !input.code) {
        const ticket = await tickets.issue({ userId: user.id, purpose: 'reset', loginInstanceId: bound });
        return { user_id: user.id, ticket, mfa: true, ...(await this.factors.offered(user, ticket)) };
      }
      const record = await tickets.attempt(input.ticket, 'reset', bound);
      if (record.userId !== user.id) throw ApiError.of('MFA_INVALID_TICKET');
      if (!(await this.factors.proves(user, input.method ?? 'totp', input.ticket, input.code))) tickets.reject();
      await tickets.consume(input.ticket);
    }
    const passwordHash = await passwords.hash(input.password);
    if (!(await target.spend())) throw invalidToken('token');
    await store.setPassword(user.id, passwordHash);
    const rotated = await rotateSessions(sessions, user.id, request);
    await this.ports.locations.record(user.id, request.clientIp);
    await this.ports.lockouts?.forgive(user, request.clientIp);
    return rotated;
  }

  /** The account a reset token is for: a mailed reset grant, else a verified phone token of its number. */
  private async resetTarget(token: string): Promise<ResetTarget | undefined> {
    const { grants, users, phones } = this.ports;
    const grant = await grants.peek<UserGrant>('reset', token);
    if (grant) {
      const user = holderOf(grant, await users.findById(grant.userId));
      return user && { user, spend: async () => (await grants.take<UserGrant>('reset', token)) !== undefined };
    }
    const phone = await phones.phoneOf(token);
    const user = phone ? await users.findByPhone(phone) : undefined;
    // The number must still be this account's when the token is spent.
    return user && { user, spend: async () => (await phones.take(token)) === user.phone };
  }

  /**
   * Spends a one-time login ticket for a new session (and its mail's reset link with it); an
   * account that enabled MFA or changed its password since is refused.
   */
  async oneTimeLogin(ticket: string, request: SessionRequest): Promise<{ token: string }> {
    const grant = await this.ports.grants.take<UserGrant>('one-time-login', ticket);
    const user = holderOf(grant, grant && (await this.ports.users.findById(grant.userId)));
    if (!user || user.mfa_enabled || user.deleted_at || user.disabled_at) throw invalidToken('ticket');
    const requiredActions = (await this.ports.standing?.admit(user, undefined)) ?? [];
    const { token } = await this.ports.sessions.create(user.id, request);
    await this.ports.locations.record(user.id, request.clientIp);
    return { token, ...requiredActionsOf(requiredActions) };
  }

  /** After an email change: mails the old address a link that reverts the account (two days). */
  async emailChanged(before: UserRow): Promise<void> {
    if (!before.email) return;
    const token = await this.ports.grants.issue<RevertGrant>('revert', { userId: before.id, email: before.email });
    await this.ports.mailer
      .send(before.email, emailChangedMail(before.username, this.ports.links.revert(token)))
      .catch((err: unknown) => this.ports.log.warn({ err: String(err) }, 'email change mail failed'));
  }

  /**
   * Restores the old email, sets the password, removes MFA and every phone (blacklisted), ends
   * every session and spends the token. Fails when the old address now belongs to another account.
   */
  async revert(token: string, password: string): Promise<{ email: string; revoked: string[] }> {
    const { grants, store, users } = this.ports;
    const grant = await grants.peek<RevertGrant>('revert', token);
    const user = grant ? await users.findById(grant.userId) : undefined;
    if (!grant || !user || user.deleted_at) throw invalidToken('token');
    if (await store.emailTakenByOther(grant.email, user.id)) throw duplicateError(['email']);
    const passwordHash = await this.ports.passwords.hash(password);
    if (!(await grants.take<RevertGrant>('revert', token))) throw invalidToken('token');
    try {
      await store.revert(user.id, { email: grant.email, passwordHash });
    } catch (err) {
      if (err instanceof DuplicateUserError) throw duplicateError(err.fields);
      throw err;
    }
    const revoked = await endSessions(this.ports.sessions, user.id);
    return { email: grant.email, revoked };
  }

  private async resetMail(user: UserRow): Promise<RenderedMail> {
    const { grants, links } = this.ports;
    const value: UserGrant = { userId: user.id, stamp: passwordStamp(user) };
    if (user.mfa_enabled) return passwordResetMail(user.username, links.reset(await grants.issue('reset', value)));
    // One mail's links end together: using either ends the other.
    const [reset, ticket] = await grants.issueGroup([
      { kind: 'reset', value },
      { kind: 'one-time-login', value },
    ]);
    return withOneTimeLogin(passwordResetMail(user.username, links.reset(reset!)), links.oneTimeLogin(ticket!));
  }
}

const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/** The reset mail of an account without MFA also offers logging in once instead. */
export function withOneTimeLogin(mail: RenderedMail, url: string): RenderedMail {
  const line = 'Or log in once without changing your password';
  return {
    subject: mail.subject,
    text: `${mail.text.trimEnd()}\n\n${line}: ${url}\n`,
    html: mail.html.replace('</body>', `<p>${escapeHtml(line)}: <a href="${escapeHtml(url)}">${escapeHtml(line)}</a></p></body>`),
  };
}
