/**
 * The one rendering of another user, as every service answers it (the platform's user object,
 * `UserResponse` in its OpenAPI description). Services get users from auth's `GetUsers`
 * (`auth.v1.PartialUser`); this takes that message structurally, so the platform package needs no
 * generated code.
 */
export interface ContractUser {
  id: string;
  username: string;
  discriminator: string;
  globalName?: string | undefined;
  avatar?: string | undefined;
  publicFlags: bigint;
  bot: boolean;
}

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
