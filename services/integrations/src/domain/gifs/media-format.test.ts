import { describe, expect, it } from 'vitest';
import type { ProviderGif } from './gif.types.js';
import { pickRendition, renderGifs, renderProviderResults, resolveMediaFormat } from './media-format.js';

const r = (url: string, size = 10) => ({ url, width: size, height: size });
const gif = (renditions: ProviderGif['renditions']): ProviderGif => ({ id: '1', title: 't', url: 'page', preview: 'still', renditions });

describe('media formats', () => {
  it('when the format is invalid or absent, then Klipy means mp4 and the others gif', () => {
    expect(resolveMediaFormat('klipy', 'nope')).toBe('mp4');
    expect(resolveMediaFormat('klipy', undefined)).toBe('mp4');
    expect(resolveMediaFormat('tenor', 'nope')).toBe('gif');
    expect(resolveMediaFormat('giphy', undefined)).toBe('gif');
    expect(resolveMediaFormat('giphy', 'tinywebm')).toBe('tinywebm');
  });

  it('when the rendition is missing, then the same size in the sibling container answers before a larger one', () => {
    const g = gif({ tinymp4: r('tiny.mp4', 48), webm: r('full.webm', 96), gif: r('full.gif', 96) });
    expect(pickRendition(g, 'tinywebm')?.url).toBe('tiny.mp4');
    expect(pickRendition(g, 'nanowebm')?.url).toBe('tiny.mp4');
    expect(pickRendition(g, 'mp4')?.url).toBe('full.webm');
    expect(pickRendition(g, 'nanowebp')?.url).toBe('full.gif');
  });

  it('when rendered, then src and its size follow the format and gif_src is the GIF', () => {
    const [view] = renderGifs([gif({ gif: r('a.gif', 96), tinygif: r('b.gif', 48) })], 'tinygif');
    expect(view).toEqual({ id: '1', title: 't', url: 'page', src: 'b.gif', gif_src: 'a.gif', preview: 'still', width: 48, height: 48 });
  });

  it('when a GIF has no rendition at all, then it is left out', () => {
    expect(renderGifs([gif({})], 'gif')).toEqual([]);
    expect(renderProviderResults([gif({})], 10)).toEqual([]);
  });

  it('when provider results are rendered, then the short link is the url and no more than the maximum come back', () => {
    const g = { ...gif({ gif: r('a.gif') }), shortUrl: 'short.gif' };
    const out = renderProviderResults([g, g, g], 2);
    expect(out).toEqual([
      { type: 'gif', url: 'short.gif', src: 'a.gif', width: 10, height: 10 },
      { type: 'gif', url: 'short.gif', src: 'a.gif', width: 10, height: 10 },
    ]);
  });
});
