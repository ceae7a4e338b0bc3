import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

type Platform = 'twitch' | 'youtube';
type Account = { id: string; name: string };
type Answer = { status: number; body: unknown } | { redirect: string };
/** A channel emote as Twitch describes it. */
export type TwitchEmote = { id: string; name: string; tier: string; emote_type: string; format: string[] };

/** Twitch's CDN address of an emote's images, as Helix answers it. */
const EMOTE_TEMPLATE = 'https://static-cdn.jtvnw.net/emoticons/v2/{{id}}/{{format}}/{{theme_mode}}/{{scale}}';

/**
 * Twitch's Helix API and id.twitch.tv OAuth2, and the YouTube Data API with Google's OAuth2, over
 * accounts held in memory: `npm start`'s development providers serve them beside the GIF APIs,
 * and tests set who subscribes to whom. Its consent pages approve at once, as the built-in
 * account (the first one), or as the account a test named with `nextLogin`.
 */
export class StreamingStandIn {
  readonly accounts: Record<Platform, Map<string, Account>> = { twitch: new Map(), youtube: new Map() };
  /** Broadcaster (or channel) → its subscriber (member) account ids. */
  readonly subscribers: Record<Platform, Map<string, string[]>> = { twitch: new Map(), youtube: new Map() };
  /** A Twitch broadcaster's channel emotes (Helix Get Channel Emotes), set by tests. */
  readonly emotes = new Map<string, TwitchEmote[]>();
  /** Which account the next consent page approves as, per platform. */
  readonly nextLogin: Partial<Record<Platform, string>> = {};
  private readonly tokens = new Map<string, { platform: Platform; accountId: string }>();
  private readonly codes = new Map<string, { platform: Platform; accountId: string }>();
  private readonly refreshTokens = new Map<string, { platform: Platform; accountId: string }>();
  readonly requests: { platform: Platform; path: string }[] = [];
  /** The next this many data API calls (Helix, YouTube Data) fail with 503, as a platform's outage does. */
  outages = 0;

  constructor(private readonly clients: Partial<Record<Platform, { id: string; secret: string }>> = {}) {
    this.addAccount('twitch', { id: '141981764', name: 'KithDev' });
    this.addAccount('twitch', { id: '141981765', name: 'KithFan' });
    this.subscribers.twitch.set('141981764', ['141981765']);
    this.emotes.set('141981764', [
      { id: 'emotesv2_kithdev_wave', name: 'kithdevWave', tier: '1000', emote_type: 'subscriptions', format: ['static'] },
      { id: 'emotesv2_kithdev_party', name: 'kithdevParty', tier: '2000', emote_type: 'subscriptions', format: ['static', 'animated'] },
      { id: 'emotesv2_kithdev_hi', name: 'kithdevHi', tier: '', emote_type: 'follower', format: ['static'] },
    ]);
    this.addAccount('youtube', { id: 'UC_kith_development_channel', name: 'Kith Dev' });
    this.addAccount('youtube', { id: 'UC_kith_development_member', name: 'Kith Member' });
    this.subscribers.youtube.set('UC_kith_development_channel', ['UC_kith_development_member']);
  }

  addAccount(platform: Platform, account: Account): void {
    this.accounts[platform].set(account.id, account);
  }

  /** Ends every access token of the account, as their expiry would: only a refresh gets a working one. */
  expireTokens(accountId: string, { refreshTokens = false } = {}): void {
    for (const [token, holder] of this.tokens) if (holder.accountId === accountId) this.tokens.delete(token);
    if (refreshTokens)
      for (const [token, holder] of this.refreshTokens) if (holder.accountId === accountId) this.refreshTokens.delete(token);
  }

  /** A code the token endpoint exchanges for the account's token, as its consent page would give. */
  issueCode(platform: Platform, accountId: string): string {
    const code = randomBytes(12).toString('hex');
    this.codes.set(code, { platform, accountId });
    return code;
  }

  /** Serves the request if it is one of these APIs' (true), or leaves it to the caller. */
  async handle(req: IncomingMessage, url: URL, res: ServerResponse): Promise<boolean> {
    const answer = await this.route(req, url);
    if (!answer) return false;
    if ('redirect' in answer) res.writeHead(302, { location: answer.redirect }).end();
    else {
      const text = JSON.stringify(answer.body);
      res
        .writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) })
        .end(text);
    }
    return true;
  }

  private async route(req: IncomingMessage, url: URL): Promise<Answer | undefined> {
    const path = url.pathname;
    const q = url.searchParams;
    // `/mock` and `/auth` are where @twurple's mock mode (TWURPLE_MOCK_API_PORT) sends Helix and OAuth2.
    const dataApi = /^\/(helix|mock)\/|^\/youtube\/v3\//.test(path);
    if (dataApi && this.outages > 0) {
      this.outages--;
      this.requests.push({ platform: path.startsWith('/youtube') ? 'youtube' : 'twitch', path: 'outage' });
      return { status: 503, body: { error: 'Service Unavailable', status: 503, message: 'try again later' } };
    }
    if (/^\/(helix|mock)\/users$/.test(path)) return this.helix(req, 'users', q);
    if (/^\/(helix|mock)\/subscriptions$/.test(path)) return this.helix(req, 'subscriptions', q);
    if (/^\/(helix|mock)\/chat\/emotes$/.test(path)) return this.channelEmotes(req, q);
    if (/^\/(oauth2|auth)\/token$/.test(path) && req.method === 'POST') return this.token('twitch', await form(req));
    if (/^\/(oauth2|auth)\/validate$/.test(path)) return this.validate(req);
    if (path === '/oauth2/authorize') return this.consent('twitch', q);
    if (path === '/token' && req.method === 'POST') return this.token('youtube', await form(req));
    if (path === '/o/oauth2/v2/auth') return this.consent('youtube', q);
    if (path === '/youtube/v3/channels') return this.youtube(req, 'channels', q);
    if (path === '/youtube/v3/members') return this.youtube(req, 'members', q);
    return undefined;
  }

  private consent(platform: Platform, q: URLSearchParams): Answer {
    const redirect = q.get('redirect_uri');
    if (!redirect || !this.clientOk(platform, q.get('client_id'))) return { status: 400, body: { status: 400, message: 'invalid client' } };
    const accountId = this.nextLogin[platform] ?? [...this.accounts[platform].keys()][0]!;
    const target = new URL(redirect);
    target.searchParams.set('code', this.issueCode(platform, accountId));
    target.searchParams.set('state', q.get('state') ?? '');
    return { redirect: target.toString() };
  }

  private token(platform: Platform, body: URLSearchParams): Answer {
    this.requests.push({ platform, path: body.get('grant_type') === 'refresh_token' ? 'refresh' : 'token' });
    if (!this.clientOk(platform, body.get('client_id'), body.get('client_secret')))
      return { status: 400, body: platform === 'twitch' ? { status: 400, message: 'invalid client secret' } : { error: 'invalid_client' } };
    const refreshing = body.get('grant_type') === 'refresh_token';
    const grant = refreshing ? this.refreshTokens.get(body.get('refresh_token') ?? '') : this.codes.get(body.get('code') ?? '');
    if ((!refreshing && body.get('grant_type') !== 'authorization_code') || !grant || grant.platform !== platform)
      return {
        status: 400,
        body: platform === 'twitch' ? { status: 400, message: 'Invalid authorization code' } : { error: 'invalid_grant' },
      };
    if (refreshing) this.refreshTokens.delete(body.get('refresh_token')!);
    else this.codes.delete(body.get('code')!);
    const accessToken = randomBytes(16).toString('hex');
    const refreshToken = randomBytes(16).toString('hex');
    this.tokens.set(accessToken, grant);
    // Refresh tokens rotate, as Twitch's do: each is used once.
    this.refreshTokens.set(refreshToken, grant);
    return {
      status: 200,
      body: {
        access_token: accessToken,
        refresh_token: refreshToken,
        expires_in: 14_000,
        token_type: 'bearer',
        ...(platform === 'twitch' ? { scope: ['channel:read:subscriptions', 'user:read:email'] } : {}),
      },
    };
  }

  /** id.twitch.tv's token validation: who holds the token, for which client, with which scopes. */
  private validate(req: IncomingMessage): Answer {
    const holder = this.bearer(req, 'twitch');
    if (!holder) return { status: 401, body: { status: 401, message: 'invalid access token' } };
    const account = this.accounts.twitch.get(holder)!;
    return {
      status: 200,
      body: {
        client_id: this.clients.twitch?.id ?? 'kith-development',
        login: account.name.toLowerCase(),
        scopes: ['channel:read:subscriptions', 'user:read:email'],
        user_id: account.id,
        expires_in: 14_000,
      },
    };
  }

  /** Helix Get Channel Emotes: any valid token may read any broadcaster's; none is 400 as on Twitch. */
  private channelEmotes(req: IncomingMessage, q: URLSearchParams): Answer {
    this.requests.push({ platform: 'twitch', path: 'chat/emotes' });
    if (!this.bearer(req, 'twitch') || !this.clientOk('twitch', header(req, 'client-id')))
      return { status: 401, body: { error: 'Unauthorized', status: 401, message: 'Invalid OAuth token' } };
    const broadcaster = q.get('broadcaster_id');
    if (!broadcaster)
      return { status: 400, body: { error: 'Bad Request', status: 400, message: 'Missing required parameter "broadcaster_id"' } };
    const cdn = (id: string, scale: string) => `https://static-cdn.jtvnw.net/emoticons/v2/${id}/static/light/${scale}`;
    return {
      status: 200,
      body: {
        data: (this.emotes.get(broadcaster) ?? []).map((e) => ({
          id: e.id,
          name: e.name,
          images: { url_1x: cdn(e.id, '1.0'), url_2x: cdn(e.id, '2.0'), url_4x: cdn(e.id, '3.0') },
          tier: e.tier,
          emote_type: e.emote_type,
          emote_set_id: e.emote_type === 'subscriptions' ? `${broadcaster}${e.tier}` : '0',
          format: e.format,
          scale: ['1.0', '2.0', '3.0'],
          theme_mode: ['light', 'dark'],
        })),
        template: EMOTE_TEMPLATE,
      },
    };
  }

  private helix(req: IncomingMessage, endpoint: 'users' | 'subscriptions', q: URLSearchParams): Answer {
    this.requests.push({ platform: 'twitch', path: endpoint });
    const holder = this.bearer(req, 'twitch');
    if (!holder || !this.clientOk('twitch', header(req, 'client-id')))
      return { status: 401, body: { error: 'Unauthorized', status: 401, message: 'Invalid OAuth token' } };
    const view = (a: Account) => ({
      id: a.id,
      login: a.name.toLowerCase(),
      display_name: a.name,
      type: '',
      broadcaster_type: 'affiliate',
      description: '',
      profile_image_url: '',
      offline_image_url: '',
      view_count: 0,
      created_at: '2020-01-01T00:00:00Z',
    });
    if (endpoint === 'users') {
      const ids = q.getAll('id');
      const list = ids.length
        ? ids.flatMap((id) => (this.accounts.twitch.has(id) ? [this.accounts.twitch.get(id)!] : []))
        : [this.accounts.twitch.get(holder)!];
      return { status: 200, body: { data: list.map(view) } };
    }
    const broadcaster = q.get('broadcaster_id') ?? '';
    if (broadcaster !== holder)
      return { status: 403, body: { error: 'Forbidden', status: 403, message: 'broadcaster_id must match the User ID in the token' } };
    const all = this.subscribers.twitch.get(broadcaster) ?? [];
    const first = Math.min(Number(q.get('first') ?? 20) || 20, 100);
    const start = Number(q.get('after') ?? 0) || 0;
    const page = all.slice(start, start + first);
    const me = this.accounts.twitch.get(broadcaster)!;
    return {
      status: 200,
      body: {
        data: page.map((id) => {
          const sub = this.accounts.twitch.get(id) ?? { id, name: `user${id}` };
          return {
            broadcaster_id: me.id,
            broadcaster_login: me.name.toLowerCase(),
            broadcaster_name: me.name,
            gifter_id: '',
            gifter_login: '',
            gifter_name: '',
            is_gift: false,
            plan_name: 'Channel Subscription',
            tier: '1000',
            user_id: sub.id,
            user_name: sub.name,
            user_login: sub.name.toLowerCase(),
          };
        }),
        pagination: start + first < all.length ? { cursor: String(start + first) } : {},
        total: all.length,
        points: all.length,
      },
    };
  }

  private youtube(req: IncomingMessage, endpoint: 'channels' | 'members', q: URLSearchParams): Answer {
    this.requests.push({ platform: 'youtube', path: endpoint });
    const holder = this.bearer(req, 'youtube');
    if (!holder)
      return {
        status: 401,
        body: { error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' } },
      };
    if (endpoint === 'channels') {
      const ids = q.get('id')?.split(',') ?? (q.get('mine') === 'true' ? [holder] : []);
      const items = ids.flatMap((id) => {
        const a = this.accounts.youtube.get(id);
        return a
          ? [{ kind: 'youtube#channel', etag: a.id, id: a.id, snippet: { title: a.name, description: '', customUrl: `@${a.name}` } }]
          : [];
      });
      return {
        status: 200,
        body: {
          kind: 'youtube#channelListResponse',
          etag: 'kith',
          pageInfo: { totalResults: items.length, resultsPerPage: items.length },
          items,
        },
      };
    }
    const all = this.subscribers.youtube.get(holder) ?? [];
    const max = Math.min(Number(q.get('maxResults') ?? 5) || 5, 1000);
    const start = Number(q.get('pageToken') ?? 0) || 0;
    const items = all.slice(start, start + max).map((id) => ({
      kind: 'youtube#member',
      etag: id,
      snippet: {
        creatorChannelId: holder,
        memberDetails: {
          channelId: id,
          channelUrl: `https://www.youtube.com/channel/${id}`,
          displayName: this.accounts.youtube.get(id)?.name ?? id,
          profileImageUrl: '',
        },
        membershipsDetails: { highestAccessibleLevel: 'level', highestAccessibleLevelDisplayName: 'Member', accessibleLevels: ['level'] },
      },
    }));
    return {
      status: 200,
      body: {
        kind: 'youtube#memberListResponse',
        etag: 'kith',
        ...(start + max < all.length ? { nextPageToken: String(start + max) } : {}),
        pageInfo: { totalResults: all.length, resultsPerPage: max },
        items,
      },
    };
  }

  private bearer(req: IncomingMessage, platform: Platform): string | undefined {
    const token = /^(?:Bearer|OAuth) (.+)$/i.exec(header(req, 'authorization') ?? '')?.[1];
    const holder = token ? this.tokens.get(token) : undefined;
    return holder?.platform === platform ? holder.accountId : undefined;
  }

  private clientOk(platform: Platform, id: string | null | undefined, secret?: string | null): boolean {
    const client = this.clients[platform];
    if (!client) return Boolean(id);
    return id === client.id && (secret === undefined || secret === client.secret);
  }
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

async function form(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 65_536) break;
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
