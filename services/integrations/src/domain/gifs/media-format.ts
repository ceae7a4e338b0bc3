import {
  isMediaFormat,
  MEDIA_FORMATS,
  type GifProviderName,
  type GifView,
  type MediaFormat,
  type ProviderGif,
  type ProviderSearchResult,
  type Rendition,
} from './gif.types.js';

/**
 * The format a request stands for: the one it names, or the platform's documented fallback for an
 * invalid (or absent) value: mp4 for Klipy, gif for the others.
 */
export function resolveMediaFormat(provider: GifProviderName, requested: string | undefined): MediaFormat {
  if (requested !== undefined && isMediaFormat(requested)) return requested;
  return provider === 'klipy' ? 'mp4' : 'gif';
}

/**
 * Where to look when a provider lacks a rendition: the same size in the sibling container first
 * (a WebM asked of Giphy, which has none, is its MP4), then the next size up, then the full GIF.
 */
const FALLBACKS: Record<MediaFormat, readonly MediaFormat[]> = {
  mp4: ['loopedmp4', 'webm', 'gif'],
  loopedmp4: ['mp4', 'webm', 'gif'],
  tinymp4: ['tinywebm', 'mp4', 'tinygif', 'gif'],
  nanomp4: ['nanowebm', 'tinymp4', 'mp4', 'nanogif', 'gif'],
  webm: ['mp4', 'gif'],
  tinywebm: ['tinymp4', 'webm', 'mp4', 'tinygif', 'gif'],
  nanowebm: ['nanomp4', 'tinywebm', 'tinymp4', 'webm', 'mp4', 'nanogif', 'gif'],
  gif: ['mediumgif', 'webp', 'mp4'],
  mediumgif: ['gif', 'tinygif', 'mp4'],
  tinygif: ['mediumgif', 'gif', 'tinymp4', 'mp4'],
  nanogif: ['tinygif', 'mediumgif', 'gif', 'nanomp4', 'mp4'],
  webp: ['gif', 'mp4'],
  tinywebp: ['webp', 'tinygif', 'gif', 'mp4'],
  nanowebp: ['tinywebp', 'webp', 'nanogif', 'gif', 'mp4'],
};

/** The rendition closest to `format` that the GIF has; undefined only for a GIF with none at all. */
export function pickRendition(gif: ProviderGif, format: MediaFormat): Rendition | undefined {
  const direct = gif.renditions[format];
  if (direct) return direct;
  for (const other of FALLBACKS[format]) {
    const found = gif.renditions[other];
    if (found) return found;
  }
  for (const any of MEDIA_FORMATS) if (gif.renditions[any]) return gif.renditions[any];
  return undefined;
}

/** The platform's GIF object in the requested format; GIFs without any rendition are left out. */
export function renderGifs(gifs: readonly ProviderGif[], format: MediaFormat): GifView[] {
  const out: GifView[] = [];
  for (const gif of gifs) {
    const src = pickRendition(gif, format);
    const asGif = pickRendition(gif, 'gif');
    if (!src || !asGif) continue;
    out.push({
      id: gif.id,
      title: gif.title,
      url: gif.url,
      src: src.url,
      gif_src: asGif.url,
      preview: gif.preview || asGif.url,
      width: src.width,
      height: src.height,
    });
  }
  return out;
}

/** `/integrations/tenor/search`'s shape: the GIF rendition with the GIF's own page. */
export function renderProviderResults(gifs: readonly ProviderGif[], max: number): ProviderSearchResult[] {
  const out: ProviderSearchResult[] = [];
  for (const gif of gifs) {
    if (out.length >= max) break;
    const src = pickRendition(gif, 'gif');
    if (src) out.push({ type: 'gif', url: gif.shortUrl || gif.url, src: src.url, width: src.width, height: src.height });
  }
  return out;
}
