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

/** The platform's email-verification form error for a login from a new location. */
export const NEW_LOCATION_ERROR = {
  code: 'ACCOUNT_LOGIN_VERIFICATION_EMAIL',
  message: 'New login location detected, please check your e-mail.',
};

interface AuthorizeIpGrant {
  userId: string;
  country: string;
}

type Store = Pick<RecoveryStorePort, 'knowsLocation' | 'addLocation'>;

/** The new-location check of password logins, and `POST /auth/authorize-ip`. */
export class LoginLocations {
  constructor(
    private readonly store: Store,
    private readonly grants: Grants,
    private readonly mailer: MailSender,
    private readonly links: RecoveryLinks,
    private readonly log: Logger,
  ) {}

  /**
   * Refuses a login from a country this account never used, mailing a link that authorizes it.
   * Accounts without an email cannot receive the link and are not checked (the SMS path is deferred).
   */
  async check(user: UserRow, clientIp: string): Promise<void> {
    const country = countryOf(clientIp);
    if (!country || !user.email || (await this.store.knowsLocation(user.id, country))) return;
    const token = await this.grants.issue<AuthorizeIpGrant>('authorize-ip', { userId: user.id, country });
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

  async authorize(token: string): Promise<void> {
    const grant = await this.grants.take<AuthorizeIpGrant>('authorize-ip', token);
    if (!grant) throw invalidToken('token');
    await this.store.addLocation(grant.userId, grant.country);
  }
}
