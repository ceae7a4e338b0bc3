import { ApiError, type ServiceClient } from '@kith/platform';
import type { AuthService, CurrentUser as CurrentUserMessage } from '@kith/proto/auth/v1/auth';
import type { AuthPort, CurrentUser, TokenOwner } from '../domain/ports.js';

/** The user object READY carries, in the platform's JSON shape (as `GET /users/@me` answers). */
function userView(u: CurrentUserMessage) {
  return {
    id: u.id,
    username: u.username,
    discriminator: u.discriminator,
    global_name: u.globalName ?? null,
    avatar: u.avatar ?? null,
    avatar_decoration_data: null,
    public_flags: Number(u.publicFlags),
    bot: u.bot,
    banner: null,
    accent_color: null,
    banner_color: null,
    bio: u.bio,
    locale: u.locale,
    nsfw_allowed: u.nsfwAllowed ?? null,
    mfa_enabled: u.mfaEnabled,
    premium_type: u.premiumType,
    premium: u.premiumType > 0,
    email: u.email ?? null,
    verified: u.verified,
    phone: u.phone ?? null,
    flags: Number(u.flags),
  };
}

/** auth's gRPC contract as the gateway needs it. */
export class GrpcAuth implements AuthPort {
  constructor(private readonly client: ServiceClient<typeof AuthService>) {}

  async validate(token: string, clientIp: string): Promise<TokenOwner | null> {
    const answer = await this.client.validateToken({ token, clientIp });
    if (!answer.valid) return null;
    return { userId: answer.userId, authSessionId: answer.sessionId, authSessionIdHash: answer.sessionIdHash, bot: answer.bot };
  }

  async currentUser(userId: string): Promise<CurrentUser> {
    const { user } = await this.client.getCurrentUser({ userId });
    if (!user) throw ApiError.of('UNKNOWN_USER');
    return { user: userView(user), settings: { locale: user.locale, theme: user.theme } };
  }
}
