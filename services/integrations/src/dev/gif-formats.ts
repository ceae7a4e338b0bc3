import { CATALOGUE, type CatalogueGif } from './gif-catalogue.js';

/**
 * The built-in GIFs in each provider's public response format (Tenor API v2, GIPHY API v1, KLIPY
 * API v1), with media URLs on the development server itself.
 */

const SIZES = { full: 1, medium: 0.75, tiny: 0.5, nano: 0.25 } as const;
type Size = keyof typeof SIZES;

const px = (g: CatalogueGif, size: Size): number => Math.max(8, Math.round(g.size * SIZES[size]));
const mediaUrl = (base: string, g: CatalogueGif, size: Size, ext: string): string => `${base}/media/${g.id}/${px(g, size)}.${ext}`;

/** Tenor's media_formats: name → [size, extension]. */
const TENOR_FORMATS: Record<string, readonly [Size, string]> = {
  gif: ['full', 'gif'],
  mediumgif: ['medium', 'gif'],
  tinygif: ['tiny', 'gif'],
  nanogif: ['nano', 'gif'],
  mp4: ['full', 'mp4'],
  loopedmp4: ['full', 'mp4'],
  tinymp4: ['tiny', 'mp4'],
  nanomp4: ['nano', 'mp4'],
  webm: ['full', 'webm'],
  tinywebm: ['tiny', 'webm'],
  nanowebm: ['nano', 'webm'],
  webp: ['full', 'webp'],
  tinywebp: ['tiny', 'webp'],
  nanowebp: ['nano', 'webp'],
  gifpreview: ['full', 'png'],
  tinygifpreview: ['tiny', 'png'],
  nanogifpreview: ['nano', 'png'],
};

export function tenorResult(base: string, g: CatalogueGif, mediaFilter: readonly string[] | undefined): Record<string, unknown> {
  const formats: Record<string, unknown> = {};
  for (const [name, [size, ext]] of Object.entries(TENOR_FORMATS)) {
    if (mediaFilter && !mediaFilter.includes(name)) continue;
    formats[name] = { url: mediaUrl(base, g, size, ext), duration: 1, preview: '', dims: [px(g, size), px(g, size)], size: 2048 };
  }
  return {
    id: g.id,
    title: g.title,
    media_formats: formats,
    created: 1700000000,
    content_description: g.title,
    itemurl: `${base}/view/${g.slug}-gif-${g.id}`,
    url: `${base}/${g.slug}.gif`,
    tags: g.tags,
    flags: [],
    hasaudio: false,
  };
}

function giphyImage(base: string, g: CatalogueGif, size: Size, fields: readonly ('url' | 'mp4' | 'webp')[]): Record<string, string> {
  const image: Record<string, string> = { width: String(px(g, size)), height: String(px(g, size)), size: '2048' };
  for (const field of fields) {
    const ext = field === 'url' ? 'gif' : field;
    image[field] = mediaUrl(base, g, size, ext);
    if (field !== 'url') image[`${field}_size`] = '1024';
  }
  return image;
}

export function giphyGif(base: string, g: CatalogueGif): Record<string, unknown> {
  const all = ['url', 'mp4', 'webp'] as const;
  return {
    type: 'gif',
    id: `dev${g.id}`,
    url: `${base}/gifs/${g.slug}-dev${g.id}`,
    slug: `${g.slug}-dev${g.id}`,
    bitly_gif_url: `${base}/g/${g.id}`,
    bitly_url: `${base}/g/${g.id}`,
    embed_url: `${base}/embed/dev${g.id}`,
    username: '',
    source: '',
    title: `${g.title} GIF`,
    rating: 'g',
    content_url: '',
    source_tld: '',
    source_post_url: '',
    is_sticker: 0,
    import_datetime: '2024-01-01 00:00:00',
    trending_datetime: '0000-00-00 00:00:00',
    images: {
      original: { ...giphyImage(base, g, 'full', all), frames: '4', hash: g.id },
      original_mp4: giphyImage(base, g, 'full', ['mp4']),
      original_still: giphyImage(base, g, 'full', ['url']),
      downsized_medium: giphyImage(base, g, 'medium', ['url']),
      downsized: giphyImage(base, g, 'medium', ['url']),
      fixed_width: giphyImage(base, g, 'tiny', all),
      fixed_height: giphyImage(base, g, 'tiny', all),
      fixed_width_still: giphyImage(base, g, 'tiny', ['url']),
      fixed_width_small: giphyImage(base, g, 'nano', all),
      fixed_height_small: giphyImage(base, g, 'nano', all),
      preview_gif: giphyImage(base, g, 'nano', ['url']),
      looping: { mp4: mediaUrl(base, g, 'full', 'mp4'), mp4_size: '1024' },
    },
    analytics_response_payload: '',
    analytics: {},
  };
}

function klipyFile(base: string, g: CatalogueGif, size: Size): Record<string, unknown> {
  const entry = (ext: string) => ({ url: mediaUrl(base, g, size, ext), width: px(g, size), height: px(g, size), size: 2048 });
  return { gif: entry('gif'), webp: entry('webp'), jpg: entry('jpg'), mp4: entry('mp4'), webm: entry('webm') };
}

export function klipyItem(base: string, g: CatalogueGif): Record<string, unknown> {
  return {
    id: Number(g.id) + 9_000_000,
    slug: g.slug,
    title: g.title,
    file: {
      hd: klipyFile(base, g, 'full'),
      md: klipyFile(base, g, 'medium'),
      sm: klipyFile(base, g, 'tiny'),
      xs: klipyFile(base, g, 'nano'),
    },
    tags: g.tags,
    type: 'gif',
    blur_preview: '',
  };
}

export const byId = (id: string): CatalogueGif | undefined => CATALOGUE.find((g) => g.id === id);
