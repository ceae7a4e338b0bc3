/**
 * The platform's GIF providers. The spec's neutral names (gif_a, gif_b, gif_c) stand for them;
 * both are accepted and the real name is what the service uses and answers with.
 */
export const GIF_PROVIDERS = ['tenor', 'giphy', 'klipy'] as const;
export type GifProviderName = (typeof GIF_PROVIDERS)[number];

const NEUTRAL: Record<string, GifProviderName> = { gif_a: 'tenor', gif_b: 'giphy', gif_c: 'klipy' };

/** `tenor`, `gif_a`, … → the provider; undefined when it is none of them. */
export function providerNamed(name: string): GifProviderName | undefined {
  const lower = name.toLowerCase();
  if ((GIF_PROVIDERS as readonly string[]).includes(lower)) return lower as GifProviderName;
  return NEUTRAL[lower];
}

/** The media formats a client may ask for (the platform's GIF Media Format values). */
export const MEDIA_FORMATS = [
  'mp4',
  'tinymp4',
  'nanomp4',
  'loopedmp4',
  'webm',
  'tinywebm',
  'nanowebm',
  'gif',
  'mediumgif',
  'tinygif',
  'nanogif',
  'webp',
  'tinywebp',
  'nanowebp',
] as const;
export type MediaFormat = (typeof MEDIA_FORMATS)[number];

export const isMediaFormat = (value: string): value is MediaFormat => (MEDIA_FORMATS as readonly string[]).includes(value);

/** One rendition of a GIF at a provider. */
export interface Rendition {
  url: string;
  width: number;
  height: number;
}

/**
 * A GIF as every adapter hands it over: the provider's renditions mapped onto the platform's media
 * formats (absent where the provider has none), its page, a still preview. This is what is cached;
 * the answer's `src` is picked from it per request.
 */
export interface ProviderGif {
  id: string;
  title: string;
  /** The provider's page for the GIF. */
  url: string;
  /** The provider's short link to the GIF itself, where it has one (`/integrations/tenor/search`). */
  shortUrl?: string;
  /** A still image. */
  preview: string;
  renditions: Partial<Record<MediaFormat, Rendition>>;
}

export interface ProviderCategory {
  name: string;
  /** A preview GIF's URL. */
  src: string;
}

/** The platform's GIF object. */
export interface GifView {
  id: string;
  title: string;
  url: string;
  src: string;
  gif_src: string;
  preview: string;
  width: number;
  height: number;
}

/** The provider GIF search result of `/integrations/tenor/search`. */
export interface ProviderSearchResult {
  type: 'gif';
  url: string;
  src: string;
  width: number;
  height: number;
}

export interface GifCategoryView {
  name: string;
  src: string;
}

/** What every query to a provider carries besides its own terms. */
export interface GifQueryOptions {
  locale: string;
  limit: number;
}
