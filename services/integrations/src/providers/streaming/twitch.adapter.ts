import type { ProviderEmote, ProviderTokens, StreamingAccount, StreamingProvider } from '../../domain/streaming/ports.js';
import { asArray, fetchProviderJson, isRecord, str, type ProviderHttpOptions } from '../http.js';
import { OAuth2TokenEndpoint } from './oauth2.js';

export interface TwitchOptions extends ProviderHttpOptions {
  /** https://api.twitch.tv (Helix under /helix). */
  apiUrl: string;
  /** https://id.twitch.tv (OAuth2 under /oauth2). */
  authUrl: string;
  clientId: string;
  clientSecret: string;
}

/** At most this many subscribers are read in one sync (100 a page). */
const MAX_PAGES = 100;

/** Twitch's Helix API and its OAuth2 code flow. */
export class TwitchAdapter implements StreamingProvider {
  readonly type = 'twitch' as const;

  private readonly tokens: OAuth2TokenEndpoint;

  constructor(private readonly options: TwitchOptions) {
    this.tokens = new OAuth2TokenEndpoint(new URL('/oauth2/token', this.options.authUrl), options);
  }

  exchangeCode(code: string, redirectUri: string): Promise<ProviderTokens> {
    return this.tokens.exchangeCode(code, redirectUri);
  }

  refresh(refreshToken: string): Promise<ProviderTokens> {
    return this.tokens.refresh(refreshToken);
  }

  authorizeUrl(state: string, redirectUri: string): string {
    const url = new URL('/oauth2/authorize', this.options.authUrl);
    url.search = new URLSearchParams({
      client_id: this.options.clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'user:read:email channel:read:subscriptions',
      state,
    }).toString();
    return url.toString();
  }

  async me(accessToken: string): Promise<StreamingAccount> {
    const [user] = await this.users(accessToken, new URLSearchParams());
    if (!user) throw new Error('Twitch answered no user for its own token');
    return user;
  }

  async account(accessToken: string, accountId: string): Promise<StreamingAccount | undefined> {
    if (!/^\d{1,20}$/.test(accountId)) return undefined;
    return (await this.users(accessToken, new URLSearchParams({ id: accountId })))[0];
  }

  async subscribers(accessToken: string, accountId: string): Promise<StreamingAccount[]> {
    const found: StreamingAccount[] = [];
    let cursor = '';
    for (let page = 0; page < MAX_PAGES; page++) {
      const query = new URLSearchParams({ broadcaster_id: accountId, first: '100', ...(cursor ? { after: cursor } : {}) });
      const body = await this.helix('/helix/subscriptions', query, accessToken);
      for (const sub of asArray(isRecord(body) ? body.data : undefined))
        if (isRecord(sub) && str(sub.user_id)) found.push({ id: str(sub.user_id), name: str(sub.user_name) || str(sub.user_login) });
      const pagination = isRecord(body) && isRecord(body.pagination) ? body.pagination : {};
      cursor = str(pagination.cursor);
      if (!cursor) break;
    }
    return found;
  }

  /**
   * The broadcaster's subscriber emotes (Helix Get Channel Emotes: `data[]` with id, name, images,
   * tier, emote_type, format, and the URL `template`); follower and Bits emotes are not synced.
   * The image is the template's largest rendition, animated where the emote is.
   */
  async emotes(accessToken: string, accountId: string): Promise<ProviderEmote[]> {
    const body = await this.helix('/helix/chat/emotes', new URLSearchParams({ broadcaster_id: accountId }), accessToken);
    const template = isRecord(body) ? str(body.template) : '';
    return asArray(isRecord(body) ? body.data : undefined).flatMap((e): ProviderEmote[] => {
      if (!isRecord(e) || !str(e.id) || !str(e.name) || str(e.emote_type) !== 'subscriptions') return [];
      const animated = asArray(e.format).includes('animated');
      const images = isRecord(e.images) ? e.images : {};
      const imageUrl = template
        ? template
            .replace('{{id}}', encodeURIComponent(str(e.id)))
            .replace('{{format}}', animated ? 'animated' : 'static')
            .replace('{{theme_mode}}', 'dark')
            .replace('{{scale}}', '3.0')
        : str(images.url_4x) || str(images.url_1x);
      return [{ id: str(e.id), name: str(e.name), animated, imageUrl }];
    });
  }

  private async users(accessToken: string, query: URLSearchParams): Promise<StreamingAccount[]> {
    const body = await this.helix('/helix/users', query, accessToken);
    return asArray(isRecord(body) ? body.data : undefined).flatMap((u) =>
      isRecord(u) && str(u.id) ? [{ id: str(u.id), name: str(u.display_name) || str(u.login) }] : [],
    );
  }

  private helix(path: string, query: URLSearchParams, accessToken: string): Promise<unknown> {
    const url = new URL(path, this.options.apiUrl);
    url.search = query.toString();
    return fetchProviderJson(url, this.options, {
      headers: { authorization: `Bearer ${accessToken}`, 'client-id': this.options.clientId },
    });
  }
}
