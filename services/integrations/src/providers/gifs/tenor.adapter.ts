import {
  MEDIA_FORMATS,
  type GifQueryOptions,
  type MediaFormat,
  type ProviderCategory,
  type ProviderGif,
} from '../../domain/gifs/gif.types.js';
import type { GifProvider } from '../../domain/gifs/ports.js';
import { asArray, fetchProviderJson, int, isRecord, str, type ProviderHttpOptions } from '../http.js';

export interface TenorConfig extends ProviderHttpOptions {
  /** `https://tenor.googleapis.com` in production. */
  baseUrl: string;
  apiKey: string;
  clientKey: string;
}

/** Tenor's formats carry the platform's media format names; the preview is its still PNG. */
const MEDIA_FILTER = [...MEDIA_FORMATS, 'gifpreview'].join(',');

/** Tenor's locale is `xx_YY`. */
const tenorLocale = (locale: string): string => locale.replace('-', '_');

/** Tenor API v2 (`/v2/search`, `/v2/featured`, `/v2/categories`, `/v2/trending_terms`, …). */
export class TenorAdapter implements GifProvider {
  readonly name = 'tenor' as const;
  /** Tenor's most results per request. */
  readonly maxResults = 50;

  constructor(private readonly config: TenorConfig) {}

  private url(path: string, params: Record<string, string>): URL {
    const url = new URL(`/v2/${path}`, this.config.baseUrl);
    for (const [k, v] of Object.entries({ ...params, key: this.config.apiKey, client_key: this.config.clientKey }))
      url.searchParams.set(k, v);
    return url;
  }

  private async results(path: string, params: Record<string, string>): Promise<unknown[]> {
    const body = await fetchProviderJson(this.url(path, params), this.config);
    return isRecord(body) ? asArray(body.results) : [];
  }

  async search(q: string, { locale, limit }: GifQueryOptions): Promise<ProviderGif[]> {
    const params = { q, locale: tenorLocale(locale), limit: String(limit), media_filter: MEDIA_FILTER, contentfilter: 'medium' };
    return (await this.results('search', params)).map(toGif).filter((g) => g !== undefined);
  }

  async trending({ locale, limit }: GifQueryOptions): Promise<ProviderGif[]> {
    const params = { locale: tenorLocale(locale), limit: String(limit), media_filter: MEDIA_FILTER, contentfilter: 'medium' };
    return (await this.results('featured', params)).map(toGif).filter((g) => g !== undefined);
  }

  async categories(locale: string): Promise<ProviderCategory[]> {
    const body = await fetchProviderJson(this.url('categories', { locale: tenorLocale(locale), type: 'featured' }), this.config);
    const tags = isRecord(body) ? asArray(body.tags) : [];
    return tags
      .filter(isRecord)
      .map((t) => ({ name: str(t.searchterm), src: str(t.image) }))
      .filter((c) => c.name && c.src);
  }

  async trendingTerms({ locale, limit }: GifQueryOptions): Promise<string[]> {
    return (await this.results('trending_terms', { locale: tenorLocale(locale), limit: String(limit) })).map(str).filter(Boolean);
  }

  async suggestions(q: string, { locale, limit }: GifQueryOptions): Promise<string[]> {
    return (await this.results('search_suggestions', { q, locale: tenorLocale(locale), limit: String(limit) })).map(str).filter(Boolean);
  }

  async registerShare(id: string, q: string, locale: string): Promise<void> {
    await fetchProviderJson(this.url('registershare', { id, q, locale: tenorLocale(locale) }), this.config);
  }
}

function toGif(value: unknown): ProviderGif | undefined {
  if (!isRecord(value) || !isRecord(value.media_formats)) return undefined;
  const formats = value.media_formats;
  const renditions: ProviderGif['renditions'] = {};
  for (const format of MEDIA_FORMATS) {
    const media = formats[format];
    if (!isRecord(media) || !str(media.url)) continue;
    const dims = asArray(media.dims);
    renditions[format as MediaFormat] = { url: str(media.url), width: int(dims[0]), height: int(dims[1]) };
  }
  const preview = isRecord(formats.gifpreview) ? str(formats.gifpreview.url) : '';
  const id = str(value.id);
  if (!id) return undefined;
  return { id, title: str(value.title), url: str(value.itemurl) || str(value.url), shortUrl: str(value.url), preview, renditions };
}
