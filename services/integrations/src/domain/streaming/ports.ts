import { ApiError } from '@kith/platform';
import type { StreamingType } from '../integrations/model.js';

export interface StreamingAccount {
  id: string;
  name: string;
}

export interface ProviderTokens {
  accessToken: string;
  refreshToken: string | null;
  expiresAt: Date | null;
}

/** A custom emote of a provider account's subscribers (a Twitch subscriber emote). */
export interface ProviderEmote {
  id: string;
  name: string;
  animated: boolean;
  imageUrl: string;
}

/**
 * One streaming platform's public API (Twitch Helix, YouTube Data): its OAuth2 code flow for a
 * user's connection, its accounts, and who pays the account (subscribers, channel members).
 * Failures are `ProviderError`s; a token the provider refuses is `bad_response` with status 401.
 */
export interface StreamingProvider {
  readonly type: StreamingType;
  authorizeUrl(state: string, redirectUri: string): string;
  exchangeCode(code: string, redirectUri: string): Promise<ProviderTokens>;
  /** New tokens for a refresh token (OAuth2 `refresh_token` grant); a refused one is `bad_response` 400/401. */
  refresh(refreshToken: string): Promise<ProviderTokens>;
  /** The account the token belongs to. */
  me(accessToken: string): Promise<StreamingAccount>;
  /** Another account by id; undefined when the provider has none. */
  account(accessToken: string, accountId: string): Promise<StreamingAccount | undefined>;
  /** Every current subscriber of the account (the token must be the account's own). */
  subscribers(accessToken: string, accountId: string): Promise<StreamingAccount[]>;
  /** The account's subscriber emotes, where the provider has them (Twitch). */
  emotes?(accessToken: string, accountId: string): Promise<ProviderEmote[]>;
}

/** A user's connected provider account, its tokens readable (the store seals them at rest). */
export interface Connection {
  user_id: string;
  type: string;
  account_id: string;
  name: string;
  access_token: string | null;
  revoked: boolean;
  visibility: number;
  friend_sync: boolean;
  show_activity: boolean;
  metadata_visibility: number;
}

export interface ConnectionsPort {
  upsert(
    connection: Omit<Connection, 'revoked' | 'visibility' | 'friend_sync' | 'show_activity' | 'metadata_visibility'> & {
      refresh_token: string | null;
      token_expires_at: Date | null;
    },
  ): Promise<Connection>;
  ofUser(userId: string): Promise<Connection[]>;
  get(userId: string, type: string, accountId: string): Promise<Connection | undefined>;
  /** The account's connection, whoever holds it. */
  byAccount(type: string, accountId: string): Promise<Connection | undefined>;
  /** Users holding these accounts of the type: account id → user id. */
  usersOf(type: string, accountIds: string[]): Promise<Map<string, string>>;
  markRevoked(type: string, accountId: string): Promise<void>;
  /** The account's refresh token and when its access token expires (null: never said). */
  refreshState(type: string, accountId: string): Promise<RefreshState | undefined>;
  /** Replaces the account's tokens after a refresh (sealed at rest like the first). */
  replaceTokens(type: string, accountId: string, tokens: ProviderTokens): Promise<void>;
  delete(userId: string, type: string, accountId: string): Promise<boolean>;
}

/** OAuth2 states of connection flows in progress: single use, bound to the user who began it. */
export interface ConnectionStates {
  issue(userId: string, type: string): Promise<string>;
  /** True once for a state this user began for this type. */
  consume(userId: string, type: string, state: string): Promise<boolean>;
}

/** What an account's token refresh needs: its refresh token and when its access token expires. */
export interface RefreshState {
  refreshToken: string | null;
  expiresAt: Date | null;
}

/** The adapter for a streaming type; one not configured is the platform's choice error on `type`. */
export function providerOf(providers: ReadonlyMap<StreamingType, StreamingProvider>, type: StreamingType): StreamingProvider {
  const provider = providers.get(type);
  if (!provider) throw ApiError.form({ type: { code: 'BASE_TYPE_CHOICES', message: 'Value must be one of (twitch, youtube).' } });
  return provider;
}
