import type { ProviderTokens } from '../../domain/streaming/ports.js';
import { fetchProviderJson, isRecord, str, type ProviderHttpOptions } from '../http.js';

export interface OAuth2Client extends ProviderHttpOptions {
  clientId: string;
  clientSecret: string;
}

/**
 * A provider's OAuth2 token endpoint as RFC 6749 defines it (the code grant, §4.1.3, and the
 * refresh grant, §6, with the client's credentials in the form): Twitch's and Google's both speak it.
 */
export class OAuth2TokenEndpoint {
  constructor(
    private readonly url: URL,
    private readonly client: OAuth2Client,
  ) {}

  exchangeCode(code: string, redirectUri: string): Promise<ProviderTokens> {
    return this.grant({ grant_type: 'authorization_code', code, redirect_uri: redirectUri });
  }

  refresh(refreshToken: string): Promise<ProviderTokens> {
    return this.grant({ grant_type: 'refresh_token', refresh_token: refreshToken });
  }

  private async grant(form: Record<string, string>): Promise<ProviderTokens> {
    const body = await fetchProviderJson(this.url, this.client, {
      method: 'POST',
      form: { client_id: this.client.clientId, client_secret: this.client.clientSecret, ...form },
    });
    return tokensOf(body);
  }
}

/** The tokens a token endpoint answered (RFC 6749 §5.1); its `expires_in` counted from now. */
export function tokensOf(body: unknown): ProviderTokens {
  const b = isRecord(body) ? body : {};
  const accessToken = str(b.access_token);
  if (!accessToken) throw new Error('the token endpoint answered no access_token');
  const expiresIn = typeof b.expires_in === 'number' ? b.expires_in : 0;
  return {
    accessToken,
    refreshToken: str(b.refresh_token) || null,
    expiresAt: expiresIn > 0 ? new Date(Date.now() + expiresIn * 1000) : null,
  };
}
