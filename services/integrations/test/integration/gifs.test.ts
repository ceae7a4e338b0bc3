import { GiphyFetch, setServerUrl } from '@giphy/js-fetch-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, direct, newUser, startIntegrationsStack, stopIntegrationsStack, type IntegrationsStack } from './harness.js';

let stack: IntegrationsStack;

beforeAll(async () => {
  // A short provider deadline so the slow-provider test is quick; the failure memory is short too.
  stack = await startIntegrationsStack({ PROVIDER_TIMEOUT_MS: '400', GIF_TRENDING_MIN_SELECTIONS: '2' });
});
afterAll(() => stopIntegrationsStack(stack));

/** A query no earlier test asked, so its answer is not cached yet. */
let n = 0;
const fresh = (word = 'cat') => `${word} ${Date.now().toString(36)}${n++}`;

describe('the loopback GIF providers speak the providers’ formats', () => {
  it('when GIPHY’s own client library reads the loopback server, then it gets GIFs with their renditions', async () => {
    setServerUrl(`${stack.gifs.url}/v1/`);
    const giphy = new GiphyFetch('giphy-key');
    const result = await giphy.search('cat', { limit: 3 });
    expect(result.data.length).toBe(3);
    expect(result.data[0]!.images.original.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/media\//);
    expect(result.data[0]!.images.fixed_width.width).toBeGreaterThan(0);
    const trending = await giphy.trending({ limit: 2 });
    expect(trending.data.length).toBe(2);
    const categories = await giphy.categories();
    expect(categories.data[0]!.gif!.images.original.url).toContain('/media/');
  });

  it('when the loopback server serves a GIF, then its bytes are an animated GIF', async () => {
    const res = await fetch(`${stack.gifs.url}/media/1001/96.gif`);
    expect(res.headers.get('content-type')).toBe('image/gif');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 6).toString()).toBe('GIF89a');
    expect(bytes.readUInt16LE(6)).toBe(96);
    expect(bytes.at(-1)).toBe(0x3b);
  });
});

describe('GET /gifs/search', () => {
  it('when asked without a format, then Tenor answers GIF objects whose src is the GIF rendition', async () => {
    const res = await api(stack, null, 'GET', `/gifs/search?q=${encodeURIComponent(fresh())}`);
    expect(res.status).toBe(200);
    expect(res.body.length).toBeGreaterThan(0);
    const gif = res.body[0];
    expect(Object.keys(gif).sort()).toEqual(['gif_src', 'height', 'id', 'preview', 'src', 'title', 'url', 'width']);
    expect(gif.src).toBe(gif.gif_src);
    expect(gif.src).toMatch(/\.gif$/);
    expect(gif.preview).toMatch(/\.png$/);
    expect(gif.url).toContain('/view/');
  });

  it('when a format is named, then src is that rendition with its size', async () => {
    const res = await api(stack, null, 'GET', `/gifs/search?q=${encodeURIComponent(fresh())}&media_format=tinymp4`);
    expect(res.body[0].src).toMatch(/\/48\.mp4$/);
    expect(res.body[0].width).toBe(48);
  });

  it('when the format is not one of the platform’s, then Tenor and GIPHY fall back to gif and Klipy to mp4', async () => {
    const q = encodeURIComponent(fresh());
    const tenor = await api(stack, null, 'GET', `/gifs/search?q=${q}&media_format=bogus`);
    const giphy = await api(stack, null, 'GET', `/gifs/search?q=${q}&media_format=bogus&provider=giphy`);
    const klipy = await api(stack, null, 'GET', `/gifs/search?q=${q}&media_format=bogus&provider=gif_c`);
    expect(tenor.body[0].src).toMatch(/\.gif$/);
    expect(giphy.body[0].src).toMatch(/\.gif$/);
    expect(klipy.body[0].src).toMatch(/\.mp4$/);
  });

  it('when GIPHY is asked for WebM, which it has not, then its MP4 of the same size answers', async () => {
    const res = await api(stack, null, 'GET', `/gifs/search?q=${encodeURIComponent(fresh())}&media_format=tinywebm&provider=gif_b`);
    expect(res.status).toBe(200);
    expect(res.body[0].src).toMatch(/\/48\.mp4$/);
    expect(res.body[0].id).toMatch(/^dev/);
  });

  it('when the locale is not a language tag, then the provider is asked for en_US', async () => {
    const q = fresh();
    await api(stack, null, 'GET', `/gifs/search?q=${encodeURIComponent(q)}&locale=%3Cscript%3E`);
    const seen = stack.gifs.requests.find((r) => r.provider === 'tenor' && r.query.get('q') === q);
    expect(seen?.query.get('locale')).toBe('en_US');
    expect(seen?.query.get('key')).toBe('tenor-key');
  });

  it('when 1,000 identical uncached searches arrive at once, then the provider is asked exactly once', async () => {
    const q = fresh('party');
    const before = stack.gifs.count('tenor', 'search');
    // Straight to the service: what is measured is the cache, not the edge's per-source limits.
    const answers = await Promise.all(Array.from({ length: 1000 }, () => direct(stack, `/gifs/search?q=${encodeURIComponent(q)}`)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(stack.gifs.count('tenor', 'search') - before).toBe(1);
  });

  it('when q is missing, limit is out of range or the provider is unknown, then 50035 names the field', async () => {
    const missing = await api(stack, null, 'GET', '/gifs/search');
    expect(missing.status).toBe(400);
    expect(missing.body.errors.q._errors[0].code).toBe('BASE_TYPE_REQUIRED');
    const low = await api(stack, null, 'GET', '/gifs/search?q=cat&limit=19');
    expect(low.body.errors.limit._errors[0].code).toBe('NUMBER_TYPE_MIN');
    const high = await api(stack, null, 'GET', '/gifs/search?q=cat&limit=501');
    expect(high.body.errors.limit._errors[0].code).toBe('NUMBER_TYPE_MAX');
    const word = await api(stack, null, 'GET', '/gifs/search?q=cat&limit=many');
    expect(word.body.errors.limit._errors[0].code).toBe('BASE_TYPE_BAD_INT');
    const provider = await api(stack, null, 'GET', '/gifs/search?q=cat&provider=gif_z');
    expect(provider.status).toBe(400);
    expect(provider.body.errors.provider._errors[0].code).toBe('BASE_TYPE_CHOICES');
  });
});

describe('a provider that is down or slow', () => {
  it('when the provider does not answer within the deadline, then 504 (not a hang), and the next query still goes out', async () => {
    // Far past the test's own timeout: only the service's deadline can end this request in time.
    stack.gifs.misbehaviour.klipy = { delayMs: 120_000 };
    try {
      const res = await api(stack, null, 'GET', `/gifs/search?provider=klipy&q=${encodeURIComponent(fresh())}`);
      expect(res.status).toBe(504);
      expect(res.body).toEqual({ code: 0, message: '504: Gateway Timeout' });
    } finally {
      delete stack.gifs.misbehaviour.klipy;
    }
    const after = await api(stack, null, 'GET', `/gifs/search?provider=klipy&q=${encodeURIComponent(fresh())}`);
    expect(after.status).toBe(200);
  });

  it('when the provider fails or talks nonsense, then 502 with the platform’s body', async () => {
    stack.gifs.misbehaviour.giphy = { status: 500 };
    const failed = await api(stack, null, 'GET', `/gifs/trending-gifs?provider=giphy&limit=25&locale=fr`);
    stack.gifs.misbehaviour.giphy = { garbage: true };
    const garbage = await api(stack, null, 'GET', `/gifs/suggest?provider=giphy&q=${encodeURIComponent(fresh())}`);
    delete stack.gifs.misbehaviour.giphy;
    expect(failed.status).toBe(502);
    expect(failed.body).toEqual({ code: 0, message: '502: Bad Gateway' });
    expect(garbage.status).toBe(502);
  });
});

describe('trending, suggestions and the provider search', () => {
  it('when trending categories are asked, then each has a name and a preview, with one placeholder trending GIF', async () => {
    for (const provider of ['tenor', 'giphy', 'klipy']) {
      const res = await api(stack, null, 'GET', `/gifs/trending?provider=${provider}&media_format=mp4`);
      expect(res.status).toBe(200);
      expect(res.body.categories.length).toBeGreaterThan(0);
      expect(res.body.categories[0]).toEqual({ name: expect.any(String), src: expect.stringContaining('/media/') });
      expect(res.body.gifs).toHaveLength(1);
      expect(res.body.gifs[0].src).toMatch(/\.mp4$/);
    }
  });

  it('when trending GIFs are asked, then they come in the asked format, no more than asked', async () => {
    const res = await api(stack, null, 'GET', '/gifs/trending-gifs?provider=tenor&limit=20&media_format=nanowebp');
    expect(res.status).toBe(200);
    expect(res.body.length).toBeGreaterThan(0);
    expect(res.body.length).toBeLessThanOrEqual(20);
    expect(res.body[0].src).toMatch(/\/24\.webp$/);
  });

  it('when suggestions and trending terms are asked, then strings come back within the limit; limits out of range are 50035', async () => {
    const suggest = await api(stack, null, 'GET', '/gifs/suggest?q=da&limit=3');
    expect(suggest.status).toBe(200);
    expect(suggest.body.length).toBeLessThanOrEqual(3);
    expect(suggest.body.every((t: unknown) => typeof t === 'string')).toBe(true);
    const terms = await api(stack, null, 'GET', '/gifs/trending-search?provider=klipy');
    expect(terms.body.length).toBeLessThanOrEqual(5);
    expect(terms.body.length).toBeGreaterThan(0);
    expect((await api(stack, null, 'GET', '/gifs/suggest?q=da&limit=51')).status).toBe(400);
    expect((await api(stack, null, 'GET', '/gifs/trending-search?limit=0')).status).toBe(400);
    expect((await api(stack, null, 'GET', '/gifs/suggest')).body.errors.q._errors[0].code).toBe('BASE_TYPE_REQUIRED');
  });

  it('when the Tenor search is asked, then it needs a user and answers at most 10 provider results', async () => {
    const user = await newUser(stack);
    expect((await api(stack, null, 'GET', '/integrations/tenor/search?q=cat')).status).toBe(401);
    const res = await api(stack, user, 'GET', '/integrations/gif_a/search?q=cat');
    expect(res.status).toBe(200);
    expect(res.body.length).toBeLessThanOrEqual(10);
    expect(res.body[0]).toEqual({
      type: 'gif',
      url: expect.stringMatching(/\.gif$/),
      src: expect.stringMatching(/\.gif$/),
      width: 96,
      height: 96,
    });
    expect((await api(stack, user, 'GET', '/integrations/giphy/search?q=cat')).status).toBe(404);
    expect((await api(stack, user, 'GET', '/integrations/tenor/search')).status).toBe(400);
  });
});

describe('POST /gifs/select', () => {
  it('when two users pick GIFs from a term, then it trends first; one user picking twice counts once; Tenor hears of each share', async () => {
    const [a, b] = [await newUser(stack), await newUser(stack)];
    const term = `zebra ${Date.now().toString(36)}`;
    const shares = stack.gifs.count('tenor', 'registershare');
    expect((await api(stack, a, 'POST', '/gifs/select', { id: '1001', q: term })).status).toBe(204);
    expect((await api(stack, a, 'POST', '/gifs/select', { id: '1002', q: term.toUpperCase() })).status).toBe(204);
    let terms = await api(stack, null, 'GET', '/gifs/trending-search?limit=50');
    expect(terms.body).not.toContain(term);
    expect((await api(stack, b, 'POST', '/gifs/select', { id: '1001', q: ` ${term} `, provider: 'gif_a' })).status).toBe(204);
    terms = await api(stack, null, 'GET', '/gifs/trending-search?limit=50');
    expect(terms.body[0]).toBe(term);
    await expect.poll(() => stack.gifs.count('tenor', 'registershare') - shares).toBe(3);
  });

  it('when anonymous or the body is wrong, then 401 and 50035', async () => {
    const user = await newUser(stack);
    expect((await api(stack, null, 'POST', '/gifs/select', { id: '1', q: 'x' })).status).toBe(401);
    const bad = await api(stack, user, 'POST', '/gifs/select', { q: 'x', provider: 'nope' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.id._errors[0].code).toBe('BASE_TYPE_REQUIRED');
    expect(bad.body.errors.provider._errors[0].code).toBe('BASE_TYPE_CHOICES');
  });
});
