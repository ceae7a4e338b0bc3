import { currentUserView, partialUserView, type ContractUser, type CurrentUserData } from '@kith/platform';
import type { PublicUserRow, UserRow } from './ports.js';

/** The platform's authenticator types: 1 WebAuthn, 2 TOTP, 3 SMS. */
export const AUTHENTICATOR_WEBAUTHN = 1;
export const AUTHENTICATOR_TOTP = 2;
export const AUTHENTICATOR_SMS = 3;

/** A user as the contract carries it to other services (GetUsers): what partialUserView renders. */
export function contractUser(u: PublicUserRow): ContractUser {
  return {
    id: u.id,
    username: u.username,
    discriminator: u.discriminator,
    globalName: u.global_name ?? undefined,
    avatar: u.avatar ?? undefined,
    publicFlags: BigInt(u.public_flags),
    bot: u.bot,
    bio: u.bio,
  };
}

/** The user's own object as the contract carries it (GetCurrentUser): what currentUserView renders. */
export function currentUser(user: UserRow): CurrentUserData {
  return {
    ...contractUser(user),
    bio: user.bio,
    locale: user.locale,
    theme: user.theme === 'light' ? 'light' : 'dark',
    mfaEnabled: user.mfa_enabled,
    email: user.email ?? undefined,
    verified: user.verified,
    phone: user.phone ?? undefined,
    flags: user.flags,
    premiumType: user.premium_type,
    nsfwAllowed: user.date_of_birth ? ageOn(user.date_of_birth, new Date()) >= 18 : undefined,
    authenticatorTypes: authenticatorTypes(user),
  };
}

/** The platform's partial (public) user object. */
export const partialUser = (user: PublicUserRow) => partialUserView(contractUser(user));

/** The current user as `GET /users/@me` returns it: the public fields plus the private ones. */
export const privateUser = (user: UserRow) => currentUserView(currentUser(user));

/** TOTP enables MFA; WebAuthn credentials and SMS count alongside it. */
export function authenticatorTypes(user: UserRow): number[] {
  if (!user.mfa_enabled) return [];
  return [
    ...(user.webauthn_enabled ? [AUTHENTICATOR_WEBAUTHN] : []),
    AUTHENTICATOR_TOTP,
    ...(user.sms_mfa_enabled && user.phone ? [AUTHENTICATOR_SMS] : []),
  ];
}

/** The `user_settings` a login answers with its token. */
export function loginSettings(user: Pick<UserRow, 'locale' | 'theme'>) {
  return { locale: user.locale, theme: user.theme === 'light' ? 'light' : 'dark' };
}

/** A login's `required_actions`: there only when the account has any to do (`update_password`). */
export function requiredActionsOf(actions: readonly string[]): { required_actions?: string[] } {
  return actions.length > 0 ? { required_actions: [...actions] } : {};
}

/** Whole years between a YYYY-MM-DD birth date and `on`. */
export function ageOn(dateOfBirth: string, on: Date): number {
  const [y, m, d] = dateOfBirth.split('-').map(Number) as [number, number, number];
  let age = on.getUTCFullYear() - y;
  if (on.getUTCMonth() + 1 < m || (on.getUTCMonth() + 1 === m && on.getUTCDate() < d)) age -= 1;
  return age;
}
