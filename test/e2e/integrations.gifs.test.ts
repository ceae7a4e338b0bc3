import { describe, expect, it } from 'vitest';
import { api, fieldCode, newUser } from './client.js';

/*
 * GIFs through `npm start`'s gateway, on the local development providers it runs: a fresh
 * machine with no provider key sees GIFs from all three providers.
 */
describe('GIFs as npm start serves them', () => {
  it('when each provider is searched without any key configured, then GIFs come back whose media the local provider serves', async () => {
    for (const provider of ['tenor', 'giphy', 'klipy', 'gif_a', 'gif_b', 'gif_c']) {
      const res = await api('GET', `/gifs/search?q=cat&provider=${provider}&media_format=gif`);
      expect(res.status).toBe(200);
      const gifs = res.json as unknown as { src: string; gif_src: string; width: number }[];
      expect(gifs.length).toBeGreaterThan(0);
      const media = await fetch(gifs[0]!.src);
      expect(media.status).toBe(200);
      expect(media.headers.get('content-type')).toBe('image/gif');
    }
  });

  it('when trending, suggestions and terms are asked, then each answers in the platform’s shape', async () => {
    const trending = await api('GET', '/gifs/trending?media_format=tinygif');
    expect(trending.status).toBe(200);
    expect((trending.json.categories as unknown[]).length).toBeGreaterThan(0);
    expect((trending.json.gifs as unknown[]).length).toBe(1);
    expect((await api('GET', '/gifs/trending-gifs?limit=20')).status).toBe(200);
    const suggest = await api('GET', '/gifs/suggest?q=ca');
    expect(Array.isArray(suggest.json)).toBe(true);
    const terms = await api('GET', '/gifs/trending-search');
    expect((terms.json as unknown as string[]).length).toBe(5);
  });

  it('when input is wrong, then 50035 names the field; the Tenor search needs a user; a selection is a 204', async () => {
    expect(fieldCode((await api('GET', '/gifs/search')).json, 'q')).toBe('BASE_TYPE_REQUIRED');
    expect(fieldCode((await api('GET', '/gifs/search?q=a&limit=10')).json, 'limit')).toBe('NUMBER_TYPE_MIN');
    expect(fieldCode((await api('GET', '/gifs/trending-search?limit=51')).json, 'limit')).toBe('NUMBER_TYPE_MAX');
    expect(fieldCode((await api('GET', '/gifs/trending?provider=nope')).json, 'provider')).toBe('BASE_TYPE_CHOICES');
    expect((await api('GET', '/integrations/tenor/search?q=cat')).status).toBe(401);
    const user = await newUser();
    const tenor = await api('GET', '/integrations/tenor/search?q=cat', { token: user.token });
    expect(tenor.status).toBe(200);
    expect((tenor.json as unknown as unknown[]).length).toBeLessThanOrEqual(10);
    expect((await api('POST', '/gifs/select', { token: user.token, body: { id: '1001', q: 'cat' } })).status).toBe(204);
    expect((await api('POST', '/gifs/select', { body: { id: '1001', q: 'cat' } })).status).toBe(401);
  });
});
