import type { GifQueryOptions, MediaFormat, ProviderCategory, ProviderGif, Rendition } from '../../domain/gifs/gif.types.js';
import type { GifProvider } from '../../domain/gifs/ports.js';
import { asArray, fetchProviderJson, int, isRecord, str, type ProviderHttpOptions } from '../http.js';

export interface GiphyConfig extends ProviderHttpOptions {
  /** `https://api.giphy.com` in production. */
  baseUrl: string;
  apiKey: string;
}

type Images = Record<string, unknown>;

/**
 * Which of Giphy's renditions stands for each media format: [rendition, field holding the URL].
 * Giphy has no WebM: the platform's fallback serves its MP4 of the same size instead.
 */
const RENDITIONS: Partial<Record<MediaFormat, readonly [string, 'url' | 'mp4' | 'webp']>> = {
  mp4: ['original_mp4', 'mp4'],
  loopedmp4: ['looping', 'mp4'],
  tinymp4: ['fixed_width', 'mp4'],
  nanomp4: ['fixed_width_small', 'mp4'],
  gif: ['original', 'url'],
  mediumgif: ['downsized_medium', 'url'],
  tinygif: ['fixed_width', 'url'],
  nanogif: ['fixed_width_small', 'url'],
  webp: ['original', 'webp'],
  tinywebp: ['fixed_width', 'webp'],
  nanowebp: ['fixed_width_small', 'webp'],
};

/** Giphy's `lang` is a two-letter language code. */
const giphyLang = (locale: string): string => locale.slice(0, 2).toLowerCase();

/** The GIPHY API v1 (`/v1/gifs/search`, `/v1/gifs/trending`, `/v1/gifs/categories`, …). */
export class GiphyAdapter implements GifProvider {
  readonly name = 'giphy' as const;
  /** GIPHY's most results per request. */
  readonly maxResults = 50;

  constructor(private readonly config: GiphyConfig) {}

  private async data(path: string, params: Record<string, string> = {}): Promise<unknown[]> {
    const url = new URL(`/v1/${path}`, this.config.baseUrl);
    for (const [k, v] of Object.entries({ ...params, api_key: this.config.apiKey })) url.searchParams.set(k, v);
    const body = await fetchProviderJson(url, this.config);
    return isRecord(body) ? asArray(body.data) : [];
  }

  async search(q: string, { locale, limit }: GifQueryOptions): Promise<ProviderGif[]> {
    const items = await this.data('gifs/search', { q, limit: String(limit), offset: '0', rating: 'pg-13', lang: giphyLang(locale) });
    return items.map(toGif).filter((g) => g !== undefined);
  }

  async trending({ limit }: GifQueryOptions): Promise<ProviderGif[]> {
    return (await this.data('gifs/trending', { limit: String(limit), rating: 'pg-13' })).map(toGif).filter((g) => g !== undefined);
  }

  async categories(): Promise<ProviderCategory[]> {
    const out: ProviderCategory[] = [];
    for (const c of (await this.data('gifs/categories')).filter(isRecord)) {
      const gif = toGif(c.gif);
      const src = gif?.renditions.gif?.url;
      if (str(c.name) && src) out.push({ name: str(c.name), src });
    }
    return out;
  }

  async trendingTerms({ limit }: GifQueryOptions): Promise<string[]> {
    return (await this.data('trending/searches')).map(str).filter(Boolean).slice(0, limit);
  }

  async suggestions(q: string, { limit }: GifQueryOptions): Promise<string[]> {
    const related = await this.data(`tags/related/${encodeURIComponent(q)}`);
    return related
      .filter(isRecord)
      .map((t) => str(t.name))
      .filter(Boolean)
      .slice(0, limit);
  }

  /** GIPHY takes no share registration through its API (its analytics ride on the media URLs). */
  async registerShare(): Promise<void> {}
}

function rendition(images: Images, name: string, field: 'url' | 'mp4' | 'webp', fallback?: Rendition): Rendition | undefined {
  const image = images[name];
  if (!isRecord(image) || !str(image[field])) return undefined;
  // `looping` carries no dimensions: it is the original, looped.
  const width = int(image.width) || fallback?.width || 0;
  const height = int(image.height) || fallback?.height || 0;
  return { url: str(image[field]), width, height };
}

function toGif(value: unknown): ProviderGif | undefined {
  if (!isRecord(value) || !isRecord(value.images) || !str(value.id)) return undefined;
  const images = value.images;
  const original = rendition(images, 'original', 'url');
  const renditions: ProviderGif['renditions'] = {};
  for (const [format, [name, field]] of Object.entries(RENDITIONS)) {
    const found = rendition(images, name, field, original);
    if (found) renditions[format as MediaFormat] = found;
  }
  const still = rendition(images, 'original_still', 'url') ?? rendition(images, 'fixed_width_still', 'url');
  return {
    id: str(value.id),
    title: str(value.title),
    url: str(value.url),
    shortUrl: str(value.bitly_gif_url) || str(value.url),
    preview: still?.url ?? '',
    renditions,
  };
}
