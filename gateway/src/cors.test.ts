import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { Cors } from './cors.js';

/** Just enough of a response to record what Cors sets on it. */
class FakeResponse {
  statusCode = 200;
  ended = false;
  readonly headers = new Map<string, string>();
  setHeader(name: string, value: string | number): this {
    this.headers.set(name.toLowerCase(), String(value));
    return this;
  }
  end(): this {
    this.ended = true;
    return this;
  }
}

function exchange(cors: Cors, method: string, headers: Record<string, string>) {
  const req = { method, headers } as unknown as IncomingMessage;
  const res = new FakeResponse();
  const answered = cors.handle(req, res as unknown as ServerResponse);
  return { answered, res };
}

const preflight = (origin: string) => ({
  origin,
  'access-control-request-method': 'POST',
  'access-control-request-headers': 'authorization, content-type',
});

describe('Cors', () => {
  it('when a browser sends a preflight, then it is answered 204 with the allowed methods and headers', () => {
    const { answered, res } = exchange(new Cors('*'), 'OPTIONS', preflight('https://app.example'));

    expect(answered).toBe(true);
    expect(res.statusCode).toBe(204);
    expect(res.ended).toBe(true);
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-methods')).toContain('DELETE');
    const allowed = res.headers.get('access-control-allow-headers')!.split(', ');
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'x-fingerprint', 'x-super-properties']));
    expect(Number(res.headers.get('access-control-max-age'))).toBeGreaterThan(0);
  });

  it('when any origin is allowed, then every origin gets `*` and no credentials', () => {
    const { res } = exchange(new Cors('*'), 'OPTIONS', preflight('https://anyone.example'));

    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.has('access-control-allow-credentials')).toBe(false);
  });

  it('when an ordinary request comes from a browser, then it gets the CORS headers and goes on to its service', () => {
    const { answered, res } = exchange(new Cors('*'), 'GET', { origin: 'https://app.example' });

    expect(answered).toBe(false);
    expect(res.ended).toBe(false);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-expose-headers')).toContain('x-ratelimit-reset-after');
    expect(res.headers.get('access-control-expose-headers')).toContain('x-request-id');
  });

  it('when OPTIONS is not a preflight, then it is passed on to the service', () => {
    const { answered, res } = exchange(new Cors('*'), 'OPTIONS', { origin: 'https://app.example' });

    expect(answered).toBe(false);
    expect(res.ended).toBe(false);
  });

  it('when origins are listed, then a listed origin is reflected with credentials', () => {
    const cors = new Cors('https://app.example, https://canary.example');

    const { answered, res } = exchange(cors, 'OPTIONS', preflight('https://canary.example'));

    expect(answered).toBe(true);
    expect(res.statusCode).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://canary.example');
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.headers.get('vary')).toBe('Origin');
  });

  it('when origins are listed, then an unlisted origin gets no CORS headers at all', () => {
    const cors = new Cors('https://app.example');

    for (const method of ['OPTIONS', 'GET']) {
      const { answered, res } = exchange(cors, method, preflight('https://evil.example'));
      expect(answered).toBe(false);
      expect(res.ended).toBe(false);
      expect([...res.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([]);
    }
  });

  it('when a request carries no Origin, then Cors leaves it alone', () => {
    const { answered, res } = exchange(new Cors('*'), 'OPTIONS', { 'access-control-request-method': 'GET' });

    expect(answered).toBe(false);
    expect(res.headers.size).toBe(0);
  });

  it('when the list also names `*`, then any origin is allowed without credentials', () => {
    const { res } = exchange(new Cors('https://app.example,*'), 'GET', { origin: 'https://other.example' });

    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.has('access-control-allow-credentials')).toBe(false);
  });
});
