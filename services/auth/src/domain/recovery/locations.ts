import { isIP } from 'node:net';
import geoip from 'geoip-country';
import { ApiError, type Logger } from '@kith/platform';
import { authorizeIpMail } from '../../delivery/mail.templates.js';
import { Grants, invalidToken } from './grants.js';
import type { RecoveryLinks } from './links.js';
import type { MailSender, UserRow } from '../ports.js';
import type { RecoveryStorePort } from './ports.js';

/**
 * The country a login comes from, or null for an address GeoIP does not place (private, loopback,
 * reserved, unallocated): those are development and internal callers, since the edge forwards the
 * public address, and count as the always-known "local" location.
 */
export function countryOf(clientIp: string): string | null {
  if (isIP(clientIp) === 0) return null;
  return geoip.lookup(clientIp)?.country || null;
}

/** The platform's verification form errors for a login from a new location: by mail, or by text. */
export const NEW_LOCATION_ERROR = {
  code: 'ACCOUNT_LOGIN_VERIFICATION_EMAIL',
  message: 'New login location detected, please check your e-mail.',
};
export const NEW_LOCATION_PHONE_ERROR = {
  code: 'ACCOUNT_LOGIN_VERIFICATION_PHONE',
  message: 'New login location detected, please check your phone.',
};

interface AuthorizeIpGrant {
  userId: string;
  country: string;
}

type Store = Pick<RecoveryStorePort, 'knowsLocation' | 'addLocation'>;

/** Texting a number a verification code, and the phone tokens a right code earns. */
export interface LocationPhones {
  /** Texts a code unless the number had its share lately (the code sent before still works). */
  textCode(phone: string): Promise<void>;
  phoneOf(token: string): Promise<string | undefined>;
  take(token: string): Promise<string | undefined>;
}

/**
 * The new-location check of password logins, and `POST /auth/authorize-ip`. A login by email is
 * verified by a mailed link; a login by phone by a texted code, verified at
 * `/phone-verifications/verify` for a phone token that Authorize IP then takes as the link's token.
 */
export class LoginLocations {
  constructor(
    private readonly store: Store,
    private readonly grants: Grants,
    private readonly mailer: MailSender,
    private readonly links: RecoveryLinks,
    private readonly log: Logger,
    private readonly phones?: LocationPhones,
  ) {}

  /** Refuses a login from a country this account never used, sending what authorizes it the way the login came. */
  async check(user: UserRow, clientIp: string, login: string = user.email ?? ''): Promise<void> {
    const country = countryOf(clientIp);
    if (!country || (await this.store.knowsLocation(user.id, country))) return;
    const grant: AuthorizeIpGrant = { userId: user.id, country };
    if (login.startsWith('+') && user.phone && this.phones) {
      await this.grants.keep('authorize-ip-phone', user.phone, grant);
      await this.phones.textCode(user.phone);
      throw ApiError.form({ login: NEW_LOCATION_PHONE_ERROR });
    }
    // An account without an email (or a phone to text) has no way to be told: it is not checked.
    if (!user.email) return;
    const token = await this.grants.issue<AuthorizeIpGrant>('authorize-ip', grant);
    const name = geoip.lookup(clientIp)?.name ?? country;
    await this.mailer
      .send(user.email, authorizeIpMail(user.username, this.links.authorizeIp(token), name))
      .catch((err: unknown) => this.log.error({ err }, 'authorize-ip mail failed'));
    throw ApiError.form({ login: NEW_LOCATION_ERROR });
  }

  /** Makes the caller's country known (registration, and logins the mail proved). */
  async record(userId: string, clientIp: string): Promise<void> {
    const country = countryOf(clientIp);
    if (country) await this.store.addLocation(userId, country);
  }

  /** The mailed link's token, or a phone token of the number a login by phone texted. */
  async authorize(token: string): Promise<void> {
    const grant = (await this.grants.take<AuthorizeIpGrant>('authorize-ip', token)) ?? (await this.byPhone(token));
    if (!grant) throw invalidToken('token');
    await this.store.addLocation(grant.userId, grant.country);
  }

  /** A phone token is spent only when a login by its number is waiting (else it stays usable elsewhere). */
  private async byPhone(token: string): Promise<AuthorizeIpGrant | undefined> {
    const phone = this.phones && (await this.phones.phoneOf(token));
    if (!phone || !(await this.grants.peek<AuthorizeIpGrant>('authorize-ip-phone', phone))) return undefined;
    if ((await this.phones!.take(token)) !== phone) return undefined;
    return this.grants.take<AuthorizeIpGrant>('authorize-ip-phone', phone);
  }
}
