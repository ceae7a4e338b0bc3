import type { UserRow } from './ports.js';

/** The platform's authenticator types: 1 WebAuthn, 2 TOTP, 3 SMS. */
export const AUTHENTICATOR_WEBAUTHN = 1;
export const AUTHENTICATOR_TOTP = 2;
export const AUTHENTICATOR_SMS = 3;

/** The platform's partial (public) user object. */
export function partialUser(user: UserRow) {
  return {
    id: user.id,
    username: user.username,
    discriminator: user.discriminator,
    global_name: user.global_name,
    avatar: user.avatar,
    avatar_decoration_data: null,
    public_flags: Number(user.public_flags),
    bot: user.bot || undefined,
  };
}

/** The current user as `GET /users/@me` returns it: the public fields plus the private ones. */
export function privateUser(user: UserRow) {
  return {
    ...partialUser(user),
    bot: user.bot,
    banner: null,
    accent_color: null,
    banner_color: null,
    bio: user.bio,
    clan: null,
    primary_guild: null,
    locale: user.locale,
    nsfw_allowed: user.date_of_birth ? ageOn(user.date_of_birth, new Date()) >= 18 : null,
    mfa_enabled: user.mfa_enabled,
    authenticator_types: authenticatorTypes(user),
    premium_type: user.premium_type,
    premium_usage_flags: 0,
    purchased_flags: 0,
    email: user.email,
    verified: user.verified,
    phone: user.phone,
    flags: Number(user.flags),
  };
}

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

/** Whole years between a YYYY-MM-DD birth date and `on`. */
export function ageOn(dateOfBirth: string, on: Date): number {
  const [y, m, d] = dateOfBirth.split('-').map(Number) as [number, number, number];
  let age = on.getUTCFullYear() - y;
  if (on.getUTCMonth() + 1 < m || (on.getUTCMonth() + 1 === m && on.getUTCDate() < d)) age -= 1;
  return age;
}
