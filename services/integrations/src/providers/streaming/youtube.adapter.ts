import type { ProviderTokens, StreamingAccount, StreamingProvider } from '../../domain/streaming/ports.js';
import { asArray, fetchProviderJson, isRecord, str, type ProviderHttpOptions } from '../http.js';
import { OAuth2TokenEndpoint } from './oauth2.js';

export interface YouTubeOptions extends ProviderHttpOptions {
  /** https://www.googleapis.com (the Data API under /youtube/v3). */
  apiUrl: string;
  /** https://accounts.google.com (the consent page). */
  accountsUrl: string;
  /** https://oauth2.googleapis.com (the token endpoint). */
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
}

const MAX_PAGES = 20;

/** The YouTube Data API (channels, channel members) and Google's OAuth2 code flow. */
export class YouTubeAdapter implements StreamingProvider {
  readonly type = 'youtube' as const;

  private readonly tokens: OAuth2TokenEndpoint;

  constructor(private readonly options: YouTubeOptions) {
    this.tokens = new OAuth2TokenEndpoint(new URL('/token', this.options.tokenUrl), options);
  }

  exchangeCode(code: string, redirectUri: string): Promise<ProviderTokens> {
    return this.tokens.exchangeCode(code, redirectUri);
  }

  refresh(refreshToken: string): Promise<ProviderTokens> {
    return this.tokens.refresh(refreshToken);
  }

  authorizeUrl(state: string, redirectUri: string): string {
    const url = new URL('/o/oauth2/v2/auth', this.options.accountsUrl);
    url.search = new URLSearchParams({
      client_id: this.options.clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'https://www.googleapis.com/auth/youtube.readonly https://www.googleapis.com/auth/youtube.channel-memberships.creator',
      access_type: 'offline',
      state,
    }).toString();
    return url.toString();
  }

  async me(accessToken: string): Promise<StreamingAccount> {
    const [channel] = await this.channels(accessToken, new URLSearchParams({ part: 'snippet', mine: 'true' }));
    if (!channel) throw new Error('YouTube answered no channel for its own token');
    return channel;
  }

  async account(accessToken: string, accountId: string): Promise<StreamingAccount | undefined> {
    if (!/^[\w-]{1,64}$/.test(accountId)) return undefined;
    return (await this.channels(accessToken, new URLSearchParams({ part: 'snippet', id: accountId })))[0];
  }

  /** Channel members (memberships) of the token's own channel. */
  async subscribers(accessToken: string): Promise<StreamingAccount[]> {
    const found: StreamingAccount[] = [];
    let pageToken = '';
    for (let page = 0; page < MAX_PAGES; page++) {
      const query = new URLSearchParams({ part: 'snippet', mode: 'all_current', maxResults: '1000', ...(pageToken ? { pageToken } : {}) });
      const body = await this.get('/youtube/v3/members', query, accessToken);
      for (const item of asArray(isRecord(body) ? body.items : undefined)) {
        const details =
          isRecord(item) && isRecord(item.snippet) && isRecord(item.snippet.memberDetails) ? item.snippet.memberDetails : undefined;
        if (details && str(details.channelId)) found.push({ id: str(details.channelId), name: str(details.displayName) });
      }
      pageToken = isRecord(body) ? str(body.nextPageToken) : '';
      if (!pageToken) break;
    }
    return found;
  }

  private async channels(accessToken: string, query: URLSearchParams): Promise<StreamingAccount[]> {
    const body = await this.get('/youtube/v3/channels', query, accessToken);
    return asArray(isRecord(body) ? body.items : undefined).flatMap((c) =>
      isRecord(c) && str(c.id) ? [{ id: str(c.id), name: isRecord(c.snippet) ? str(c.snippet.title) : '' }] : [],
    );
  }

  private get(path: string, query: URLSearchParams, accessToken: string): Promise<unknown> {
    const url = new URL(path, this.options.apiUrl);
    url.search = query.toString();
    return fetchProviderJson(url, this.options, { headers: { authorization: `Bearer ${accessToken}` } });
  }
}
