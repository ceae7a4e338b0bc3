import type { CurrentUser, PartialUser } from '@kith/proto/auth/v1/auth';
import type { Plain } from './views/plain.js';

/**
 * The one rendering of another user, as every service answers it (the platform's user object,
 * `UserResponse` in its OpenAPI description), from the user auth's `GetUsers` answers.
 */
export type ContractUser = Plain<PartialUser>;

export interface PartialUserView {
  id: string;
  username: string;
  discriminator: string;
  global_name: string | null;
  avatar: string | null;
  avatar_decoration_data: null;
  collectibles: null;
  primary_guild: null;
  public_flags: number;
  // The platform sends another user's `flags` as their public flags: the rest are private.
  flags: number;
  banner: null;
  accent_color: null;
  bot?: true;
}

export function partialUserView(u: ContractUser): PartialUserView {
  const publicFlags = Number(u.publicFlags);
  return {
    id: u.id,
    username: u.username,
    discriminator: u.discriminator,
    global_name: u.globalName ?? null,
    avatar: u.avatar ?? null,
    avatar_decoration_data: null,
    collectibles: null,
    primary_guild: null,
    public_flags: publicFlags,
    flags: publicFlags,
    banner: null,
    accent_color: null,
    ...(u.bot ? { bot: true as const } : {}),
  };
}

/** A user auth no longer knows (a deleted account): the platform still renders a user there. */
export function deletedUserView(id: string): PartialUserView {
  return partialUserView({ id, username: 'deleted_user', discriminator: '0', globalName: 'Deleted User', publicFlags: 0n, bot: false });
}

/** A user by id as auth answered it (undefined: auth no longer knows them). */
export function userView(id: string, user: ContractUser | undefined): PartialUserView {
  return user ? partialUserView(user) : deletedUserView(id);
}

/** The user's own object, as auth's GetCurrentUser answers it. */
export type CurrentUserData = Plain<CurrentUser>;

/**
 * The user's own (private) object: what GET /users/@me answers, USER_UPDATE carries and READY
 * starts with. The public part is partialUserView's; `flags` here are all of them.
 */
export function currentUserView(u: CurrentUserData) {
  return {
    ...partialUserView(u),
    bot: u.bot,
    banner_color: null,
    bio: u.bio,
    clan: null,
    locale: u.locale,
    nsfw_allowed: u.nsfwAllowed ?? null,
    mfa_enabled: u.mfaEnabled,
    authenticator_types: u.authenticatorTypes,
    premium_type: u.premiumType,
    premium_usage_flags: 0,
    purchased_flags: 0,
    email: u.email ?? null,
    verified: u.verified,
    phone: u.phone ?? null,
    flags: Number(u.flags),
  };
}
