import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { CATEGORIES, matching, suggestionsFor, TRENDING_TERMS, CATALOGUE } from './gif-catalogue.js';
import { byId, giphyGif, klipyItem, tenorResult } from './gif-formats.js';
import { animatedGif, colourOf } from './gif-image.js';
import type { StreamingStandIn } from './streaming-providers.js';

export type DevGifProvider = 'tenor' | 'giphy' | 'klipy';

/** How a provider misbehaves, for tests of slow and broken providers. */
export interface Misbehaviour {
  delayMs?: number;
  /** Answer with this HTTP status instead. */
  status?: number;
  /** Answer 200 with a body that is not JSON. */
  garbage?: boolean;
}

export interface GifProvidersServerOptions {
  /** Each provider's accepted key; any key is accepted for a provider not named. */
  keys?: Partial<Record<DevGifProvider, string>>;
  /** The streaming platforms' APIs, served on the same port. */
  streaming?: StreamingStandIn;
}

type Query = URLSearchParams;
type Answer = { status: number; body: unknown };

/**
 * A local server speaking Tenor's, GIPHY's and KLIPY's public GIF APIs over a few built-in GIFs,
 * and serving the GIFs themselves. `npm start` runs it so GIFs work without provider keys; the
 * tests run it to count and shape what the adapters ask.
 */
export class GifProvidersServer {
  private server: Server | undefined;
  private base = '';
  private readonly images = new Map<string, Buffer>();
  /** Requests per `<provider> <path>`, and their query strings. */
  readonly requests: { provider: DevGifProvider; path: string; query: Query }[] = [];
  readonly misbehaviour: Partial<Record<DevGifProvider, Misbehaviour>> = {};

  constructor(private readonly options: GifProvidersServerOptions = {}) {}

  get url(): string {
    return this.base;
  }

  /** How many requests reached `provider` (at `path`, when given). */
  count(provider: DevGifProvider, path?: string): number {
    return this.requests.filter((r) => r.provider === provider && (path === undefined || r.path === path)).length;
  }

  async listen(port = 0, host = '127.0.0.1', publicUrl?: string): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, host, () => resolve());
    });
    this.base = publicUrl ?? `http://${host}:${(this.server.address() as AddressInfo).port}`;
    return this.base;
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://local');
    if (url.pathname === '/healthz') return send(res, { status: 200, body: { status: 'ok' } });
    if (url.pathname.startsWith('/media/')) return this.media(url.pathname, res);
    if (this.options.streaming && (await this.options.streaming.handle(req, url, res))) return;
    const routed = this.route(url.pathname, url.searchParams);
    if (!routed) return send(res, { status: 404, body: { message: 'Not Found' } });
    this.requests.push({ provider: routed.provider, path: routed.path, query: url.searchParams });
    if (this.requests.length > 100_000) this.requests.splice(0, 50_000);
    const mis = this.misbehaviour[routed.provider] ?? {};
    if (mis.delayMs) await waitUnlessClosed(res, mis.delayMs);
    if (res.destroyed) return;
    if (mis.garbage) return void res.writeHead(200, { 'content-type': 'application/json' }).end('<html>oops');
    if (mis.status) return send(res, { status: mis.status, body: { message: 'provider failure' } });
    send(res, routed.answer());
  }

  private route(path: string, q: Query): { provider: DevGifProvider; path: string; answer: () => Answer } | undefined {
    let m: RegExpExecArray | null;
    if ((m = /^\/v2\/(\w+)$/.exec(path))) {
      const endpoint = m[1]!;
      return { provider: 'tenor', path: endpoint, answer: () => this.keyed('tenor', q.get('key'), () => this.tenor(endpoint, q)) };
    }
    if ((m = /^\/v1\/(.+)$/.exec(path))) {
      const endpoint = m[1]!;
      return { provider: 'giphy', path: endpoint, answer: () => this.keyed('giphy', q.get('api_key'), () => this.giphy(endpoint, q)) };
    }
    if ((m = /^\/api\/v1\/([^/]+)\/(.+)$/.exec(path))) {
      const [key, endpoint] = [decodeURIComponent(m[1]!), m[2]!];
      return { provider: 'klipy', path: endpoint, answer: () => this.keyed('klipy', key, () => this.klipy(endpoint, q)) };
    }
    return undefined;
  }

  private keyed(provider: DevGifProvider, given: string | null, answer: () => Answer): Answer {
    const expected = this.options.keys?.[provider];
    if (!given || (expected !== undefined && given !== expected)) {
      if (provider === 'tenor')
        return { status: 400, body: { error: { code: 400, message: 'API key not valid.', status: 'INVALID_ARGUMENT' } } };
      if (provider === 'giphy') return { status: 401, body: { message: 'Unauthorized' } };
      return { status: 401, body: { result: false, errors: { message: ['Invalid app key'] } } };
    }
    return answer();
  }

  private tenor(endpoint: string, q: Query): Answer {
    const limit = clamp(q.get('limit'), 20, 50);
    const filter = q.get('media_filter')?.split(',');
    const results = (list: typeof CATALOGUE) => list.slice(0, limit).map((g) => tenorResult(this.base, g, filter));
    switch (endpoint) {
      case 'search':
        return { status: 200, body: { results: results(matching(q.get('q') ?? '')), next: String(limit) } };
      case 'featured':
        return { status: 200, body: { results: results(CATALOGUE), next: String(limit) } };
      case 'posts':
        return {
          status: 200,
          body: { results: (q.get('ids') ?? '').split(',').flatMap((id) => (byId(id) ? [tenorResult(this.base, byId(id)!, filter)] : [])) },
        };
      case 'categories': {
        const tags = CATEGORIES.map((c) => ({
          searchterm: c.name,
          path: `/v2/search?q=${c.name}`,
          image: `${this.base}/media/${c.gifId}/48.gif`,
          name: `#${c.name}`,
        }));
        return { status: 200, body: { locale: q.get('locale') ?? 'en', tags } };
      }
      case 'trending_terms':
        return { status: 200, body: { locale: 'en', results: TRENDING_TERMS.slice(0, clamp(q.get('limit'), 20, 50)) } };
      case 'search_suggestions':
      case 'autocomplete':
        return { status: 200, body: { locale: 'en', results: suggestionsFor(q.get('q') ?? '').slice(0, clamp(q.get('limit'), 20, 50)) } };
      case 'registershare':
        return { status: 200, body: {} };
      default:
        return { status: 404, body: { error: { code: 404, message: 'Not found', status: 'NOT_FOUND' } } };
    }
  }

  private giphy(endpoint: string, q: Query): Answer {
    const limit = clamp(q.get('limit'), 25, 50);
    const meta = { status: 200, msg: 'OK', response_id: randomBytes(8).toString('hex') };
    const gifs = (list: typeof CATALOGUE) => {
      const data = list.slice(0, limit).map((g) => giphyGif(this.base, g));
      return { status: 200, body: { data, pagination: { total_count: list.length, count: data.length, offset: 0 }, meta } };
    };
    let m: RegExpExecArray | null;
    if (endpoint === 'gifs/search') return gifs(matching(q.get('q') ?? ''));
    if (endpoint === 'gifs/trending') return gifs(CATALOGUE);
    if (endpoint === 'gifs/categories') {
      const data = CATEGORIES.map((c) => ({
        name: c.name,
        name_encoded: c.name,
        subcategories: [],
        gif: giphyGif(this.base, byId(c.gifId)!),
      }));
      return { status: 200, body: { data, pagination: { total_count: data.length, count: data.length, offset: 0 }, meta } };
    }
    if (endpoint === 'trending/searches') return { status: 200, body: { data: TRENDING_TERMS, meta } };
    if ((m = /^tags\/related\/(.+)$/.exec(endpoint)))
      return {
        status: 200,
        body: { data: suggestionsFor(decodeURIComponent(m[1]!)).map((name) => ({ name, analytics_response_payload: '' })), meta },
      };
    if ((m = /^gifs\/dev(\d+)$/.exec(endpoint)) && byId(m[1]!))
      return { status: 200, body: { data: giphyGif(this.base, byId(m[1]!)!), meta } };
    return { status: 404, body: { data: [], meta: { status: 404, msg: 'Not Found', response_id: meta.response_id } } };
  }

  private klipy(endpoint: string, q: Query): Answer {
    const perPage = clamp(q.get('per_page'), 24, 50);
    const page = (list: typeof CATALOGUE) => ({
      status: 200,
      body: {
        result: true,
        data: { data: list.slice(0, perPage).map((g) => klipyItem(this.base, g)), current_page: 1, per_page: perPage, has_next: false },
      },
    });
    let m: RegExpExecArray | null;
    if (endpoint === 'gifs/search') return page(matching(q.get('q') ?? ''));
    if (endpoint === 'gifs/trending') return page(CATALOGUE);
    if (endpoint === 'gifs/categories') {
      const categories = CATEGORIES.map((c) => ({ category: c.name, query: c.name, preview_url: `${this.base}/media/${c.gifId}/48.gif` }));
      return { status: 200, body: { result: true, data: { locale: q.get('locale') ?? 'en', categories } } };
    }
    if ((m = /^search-suggestions\/(.+)$/.exec(endpoint)))
      return {
        status: 200,
        body: { result: true, data: suggestionsFor(decodeURIComponent(m[1]!)).slice(0, clamp(q.get('limit'), 10, 50)) },
      };
    return { status: 404, body: { result: false, errors: { message: ['Not found'] } } };
  }

  /** `/media/<id>/<pixels>.<ext>`: the GIF itself, whatever container was named (the development server draws GIFs only). */
  private media(path: string, res: ServerResponse): void {
    const m = /^\/media\/(\d+)\/(\d{1,3})\.\w+$/.exec(path);
    const size = m ? Number(m[2]) : 0;
    if (!m || size < 8 || size > 256) return send(res, { status: 404, body: { message: 'Not Found' } });
    const key = `${m[1]}:${size}`;
    let image = this.images.get(key);
    if (!image) {
      image = animatedGif(size, [32, 34, 37], colourOf(m[1]!));
      this.images.set(key, image);
    }
    res
      .writeHead(200, { 'content-type': 'image/gif', 'content-length': image.length, 'cache-control': 'public, max-age=86400' })
      .end(image);
  }
}

/** Waits, but no longer than the client does: a closed socket ends the wait. */
function waitUnlessClosed(res: ServerResponse, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    res.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function clamp(value: string | null, fallback: number, max: number): number {
  const n = value === null ? Number.NaN : Number.parseInt(value, 10);
  return Number.isFinite(n) && n > 0 ? Math.min(n, max) : fallback;
}

function send(res: ServerResponse, { status, body }: Answer): void {
  if (res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) }).end(text);
}
