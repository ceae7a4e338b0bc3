import { ApiError } from '@kith/platform';
import type { StreamingType } from '../integrations/model.js';
import { providerOf, type Connection, type ConnectionsPort, type ConnectionStates, type StreamingProvider } from './ports.js';

/** The platform's connection object, as its owner sees it. */
export function connectionView(c: Connection) {
  return {
    id: c.account_id,
    name: c.name,
    type: c.type,
    revoked: c.revoked,
    verified: true,
    visibility: c.visibility,
    friend_sync: c.friend_sync,
    show_activity: c.show_activity,
    two_way_link: false,
    metadata_visibility: c.metadata_visibility,
    integrations: [],
  };
}

/**
 * A user's connected streaming accounts, in the minimal form streaming integrations need: the
 * provider's OAuth2 code flow (authorize URL, then the callback with the code), list, remove.
 */
export class ConnectionsService {
  constructor(
    private readonly providers: Map<StreamingType, StreamingProvider>,
    private readonly connections: ConnectionsPort,
    private readonly states: ConnectionStates,
    private readonly redirectBase: string,
  ) {}

  async authorizeUrl(userId: string, type: StreamingType): Promise<{ url: string }> {
    const state = await this.states.issue(userId, type);
    return { url: this.provider(type).authorizeUrl(state, this.redirectUri(type)) };
  }

  async callback(userId: string, type: StreamingType, code: string, state: string) {
    if (!(await this.states.consume(userId, type, state)))
      throw ApiError.form({ state: { code: 'CONNECTION_STATE_INVALID', message: 'Invalid or expired state.' } });
    const provider = this.provider(type);
    const tokens = await provider.exchangeCode(code, this.redirectUri(type)).catch((err: unknown) => {
      if ((err as { kind?: string }).kind === 'bad_response')
        throw ApiError.form({ code: { code: 'CONNECTION_CODE_INVALID', message: 'Invalid authorization code.' } });
      throw err;
    });
    const account = await provider.me(tokens.accessToken);
    const connection = await this.connections.upsert({
      user_id: userId,
      type,
      account_id: account.id,
      name: account.name,
      access_token: tokens.accessToken,
      refresh_token: tokens.refreshToken,
      token_expires_at: tokens.expiresAt,
    });
    return connectionView(connection);
  }

  async list(userId: string) {
    return (await this.connections.ofUser(userId)).map(connectionView);
  }

  async remove(userId: string, type: StreamingType, accountId: string): Promise<void> {
    if (!(await this.connections.delete(userId, type, accountId))) throw new ApiError(404, { code: 10017, message: 'Unknown Connection' });
  }

  private redirectUri(type: StreamingType): string {
    return `${this.redirectBase.replace(/\/$/, '')}/${type}/callback`;
  }

  private provider(type: StreamingType): StreamingProvider {
    return providerOf(this.providers, type);
  }
}
