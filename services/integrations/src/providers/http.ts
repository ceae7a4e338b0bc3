import { ProviderError } from '../domain/provider.error.js';

/** How every provider adapter calls out: one deadline for the whole exchange, a bounded body. */
export interface ProviderHttpOptions {
  timeoutMs: number;
  /** Largest answer read; a larger one is a bad response, not memory spent. */
  maxBytes?: number;
}

export interface ProviderRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** A form body (`application/x-www-form-urlencoded`), as OAuth token endpoints take. */
  form?: Record<string, string>;
}

const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;

/**
 * Fetches a provider URL and parses its JSON. Timeouts, refused connections, 5xx and 429 are
 * `unavailable`/`timeout`; a 4xx or a body that is not JSON is `bad_response` (with the status,
 * never the body: some providers echo the key back).
 */
export async function fetchProviderJson<T = unknown>(url: URL, options: ProviderHttpOptions, request: ProviderRequest = {}): Promise<T> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  let res: Response;
  try {
    res = await fetch(url, {
      method: request.method ?? 'GET',
      headers: {
        accept: 'application/json',
        ...(request.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...request.headers,
      },
      ...(request.form ? { body: new URLSearchParams(request.form).toString() } : {}),
      signal,
      redirect: 'error',
    });
  } catch (err) {
    throw failure(err, signal, `${url.host} unreachable`);
  }
  let text: string;
  try {
    text = await readBounded(res, options.maxBytes ?? DEFAULT_MAX_BYTES);
  } catch (err) {
    throw failure(err, signal, `${url.host} answer unreadable`);
  }
  if (res.status >= 500 || res.status === 429) throw new ProviderError('unavailable', `${url.host} answered ${res.status}`);
  if (!res.ok) throw new ProviderError('bad_response', `${url.host} answered ${res.status}`, res.status);
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ProviderError('bad_response', `${url.host} answered with something other than JSON`);
  }
}

function failure(err: unknown, signal: AbortSignal, message: string): ProviderError {
  if (err instanceof ProviderError) return err;
  return signal.aborted ? new ProviderError('timeout', `${message}: no answer in time`) : new ProviderError('unavailable', message);
}

async function readBounded(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new ProviderError('bad_response', 'answer too large');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads a field as a string, whatever JSON type the provider used for it. */
export const str = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');

/** Reads a dimension: Giphy sends them as strings, others as numbers. */
export const int = (value: unknown): number => {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number.parseInt(value, 10) : Number.NaN;
  return Number.isFinite(n) && n >= 0 ? Math.floor(n) : 0;
};

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
