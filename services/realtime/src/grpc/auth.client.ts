import { ApiError, currentUserView, type ServiceClient } from '@kith/platform';
import type { AuthService, CurrentUser as CurrentUserMessage } from '@kith/proto/auth/v1/auth';
import type { AuthPort, CurrentUser, TokenOwner } from '../domain/ports.js';

/** The user object READY carries: the platform's rendering of the user's own object (as GET /users/@me answers), and whether they have premium. */
const readyUser = (u: CurrentUserMessage) => ({ ...currentUserView(u), premium: u.premiumType > 0 });

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
    return { user: readyUser(user), settings: { locale: user.locale, theme: user.theme } };
  }
}
