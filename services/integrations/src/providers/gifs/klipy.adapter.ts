import type { GifQueryOptions, MediaFormat, ProviderCategory, ProviderGif, Rendition } from '../../domain/gifs/gif.types.js';
import type { GifProvider } from '../../domain/gifs/ports.js';
import { asArray, fetchProviderJson, int, isRecord, str, type ProviderHttpOptions } from '../http.js';

export interface KlipyConfig extends ProviderHttpOptions {
  /** `https://api.klipy.com` in production. */
  baseUrl: string;
  /** Klipy's app key, which its API takes in the path. */
  apiKey: string;
  /** Klipy asks for a customer id per end user; one id for the service keeps users' ids to ourselves. */
  customerId: string;
  /** The page a GIF's slug is shown at (`https://klipy.com/gifs/`). */
  pageBaseUrl: string;
}

/** Klipy's sizes (hd, md, sm, xs) × containers, per media format. */
const RENDITIONS: Record<MediaFormat, readonly [string, string]> = {
  mp4: ['hd', 'mp4'],
  loopedmp4: ['hd', 'mp4'],
  tinymp4: ['sm', 'mp4'],
  nanomp4: ['xs', 'mp4'],
  webm: ['hd', 'webm'],
  tinywebm: ['sm', 'webm'],
  nanowebm: ['xs', 'webm'],
  gif: ['hd', 'gif'],
  mediumgif: ['md', 'gif'],
  tinygif: ['sm', 'gif'],
  nanogif: ['xs', 'gif'],
  webp: ['hd', 'webp'],
  tinywebp: ['sm', 'webp'],
  nanowebp: ['xs', 'webp'],
};

/** The KLIPY API v1 (`/api/v1/{app_key}/gifs/search`, `…/gifs/trending`, `…/gifs/categories`, …). */
export class KlipyAdapter implements GifProvider {
  readonly name = 'klipy' as const;
  /** Klipy's most results per page. */
  readonly maxResults = 50;

  constructor(private readonly config: KlipyConfig) {}

  private async data(path: string, params: Record<string, string>): Promise<unknown> {
    const url = new URL(`/api/v1/${encodeURIComponent(this.config.apiKey)}/${path}`, this.config.baseUrl);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    const body = await fetchProviderJson(url, this.config);
    return isRecord(body) ? body.data : undefined;
  }

  private async page(path: string, params: Record<string, string>): Promise<ProviderGif[]> {
    const data = await this.data(path, { ...params, page: '1', customer_id: this.config.customerId, content_filter: 'medium' });
    const items = isRecord(data) ? asArray(data.data) : [];
    return items.map((item) => this.toGif(item)).filter((g) => g !== undefined);
  }

  search(q: string, { locale, limit }: GifQueryOptions): Promise<ProviderGif[]> {
    return this.page('gifs/search', { q, per_page: String(limit), locale: locale.replace('-', '_') });
  }

  trending({ locale, limit }: GifQueryOptions): Promise<ProviderGif[]> {
    return this.page('gifs/trending', { per_page: String(limit), locale: locale.replace('-', '_') });
  }

  async categories(locale: string): Promise<ProviderCategory[]> {
    const data = await this.data('gifs/categories', { locale: locale.replace('-', '_') });
    const categories = isRecord(data) ? asArray(data.categories) : [];
    return categories
      .filter(isRecord)
      .map((c) => ({ name: str(c.query) || str(c.category), src: str(c.preview_url) }))
      .filter((c) => c.name && c.src);
  }

  /** Klipy's trending categories are its trending searches: their queries are the terms. */
  async trendingTerms({ locale, limit }: GifQueryOptions): Promise<string[]> {
    return (await this.categories(locale)).map((c) => c.name).slice(0, limit);
  }

  async suggestions(q: string, { limit }: GifQueryOptions): Promise<string[]> {
    const data = await this.data(`search-suggestions/${encodeURIComponent(q)}`, { limit: String(limit) });
    return asArray(data).map(str).filter(Boolean).slice(0, limit);
  }

  /** Shares are not reported to Klipy (its API bills ads, not shares). */
  async registerShare(): Promise<void> {}

  private toGif(value: unknown): ProviderGif | undefined {
    if (!isRecord(value) || !isRecord(value.file) || (value.type !== undefined && value.type !== 'gif')) return undefined;
    const file = value.file;
    const renditions: ProviderGif['renditions'] = {};
    for (const [format, [size, container]] of Object.entries(RENDITIONS)) {
      const found = media(file, size, container);
      if (found) renditions[format as MediaFormat] = found;
    }
    const id = str(value.id);
    if (!id) return undefined;
    const slug = str(value.slug) || id;
    return {
      id,
      title: str(value.title),
      url: new URL(encodeURIComponent(slug), this.config.pageBaseUrl).toString(),
      preview: media(file, 'md', 'jpg')?.url ?? media(file, 'sm', 'jpg')?.url ?? '',
      renditions,
    };
  }
}

function media(file: Record<string, unknown>, size: string, container: string): Rendition | undefined {
  const bySize = file[size];
  if (!isRecord(bySize)) return undefined;
  const m = bySize[container];
  if (!isRecord(m) || !str(m.url)) return undefined;
  return { url: str(m.url), width: int(m.width), height: int(m.height) };
}
