import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A local age-verification provider speaking k-ID's API (the part auth's adapter uses:
 * `perform-access-age-verification` and `get-status` under `/api/v1/age-verification`, a bearer
 * API key), so that `npm start` has one. The webview URL it answers is its own page, where the
 * user (the developer) says whether the check passed or failed; `get-status` then answers so.
 * Verifications live in memory: a restart forgets them, and auth takes a forgotten one for
 * unknown, as it does k-ID's.
 */

export type KidStatus = 'PENDING' | 'PASS' | 'FAIL';

interface Verification {
  id: string;
  status: KidStatus;
  subject: string;
  ageCategory: string;
  jurisdiction: string;
}

export interface KidServerOptions {
  /** The API key callers must present; unset, any key is taken (local development). */
  apiKey?: string;
}

const API = '/api/v1/age-verification';
const MAX_BODY_BYTES = 16 * 1024;
const AGE_CATEGORIES = new Set(['ADULT', 'DIGITAL_CONSENT', 'CHILD']);

type Answer = { status: number; type: 'json' | 'html'; body: string };
const json = (status: number, body: unknown): Answer => ({ status, type: 'json', body: JSON.stringify(body) });
const html = (status: number, body: string): Answer => ({ status, type: 'html', body });
/** k-ID's error bodies: an error code and a message. */
const invalid = (message: string) => json(400, { error: 'INVALID_INPUT', errorMessage: message });

export class KidServer {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly verifications = new Map<string, Verification>();
  private publicUrl = '';

  constructor(private readonly options: KidServerOptions = {}) {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  /** Listens; `publicUrl` is where browsers reach it (default: the address it listens on). Answers the address. */
  async listen(port = 0, host = '127.0.0.1', publicUrl?: string): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(port, host, resolve));
    const address = this.server.address() as AddressInfo;
    const url = `http://${host}:${address.port}`;
    this.publicUrl = (publicUrl ?? url).replace(/\/+$/, '');
    return url;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let answer: Answer;
    try {
      answer = await this.route(req);
    } catch {
      answer = invalid('The request could not be read.');
    }
    res.writeHead(answer.status, {
      'content-type': answer.type === 'json' ? 'application/json' : 'text/html; charset=utf-8',
      'cache-control': 'no-store',
    });
    res.end(answer.body);
  }

  private async route(req: IncomingMessage): Promise<Answer> {
    const url = new URL(req.url ?? '/', 'http://kid.local');
    if (req.method === 'GET' && url.pathname === '/healthz') return json(200, { ok: true });
    if (url.pathname === '/verify') {
      if (req.method === 'GET') return this.page(url.searchParams.get('id') ?? '');
      if (req.method === 'POST') return this.complete(new URLSearchParams(await readBody(req)));
    }
    if (!url.pathname.startsWith(`${API}/`)) return json(404, { error: 'NOT_FOUND', errorMessage: 'Not found.' });
    if (!this.authorized(req.headers.authorization)) return json(401, { error: 'UNAUTHORIZED', errorMessage: 'Invalid API key.' });
    if (req.method === 'POST' && url.pathname === `${API}/perform-access-age-verification`) return this.perform(await readBody(req));
    if (req.method === 'GET' && url.pathname === `${API}/get-status`) return this.status(url.searchParams.get('id') ?? '');
    return json(404, { error: 'NOT_FOUND', errorMessage: 'Not found.' });
  }

  private authorized(header: string | undefined): boolean {
    const match = /^Bearer (.+)$/.exec(header ?? '');
    if (!match) return false;
    if (this.options.apiKey === undefined) return true;
    const given = Buffer.from(match[1]!);
    const expected = Buffer.from(this.options.apiKey);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private perform(raw: string): Answer {
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      return invalid('The body is not JSON.');
    }
    const { jurisdiction, criteria, subject } = (body ?? {}) as {
      jurisdiction?: unknown;
      criteria?: { ageCategory?: unknown };
      subject?: { id?: unknown };
    };
    if (typeof jurisdiction !== 'string' || !/^[A-Z]{2}(-[A-Z0-9]{1,3})?$/.test(jurisdiction)) return invalid('jurisdiction is required.');
    if (typeof criteria?.ageCategory !== 'string' || !AGE_CATEGORIES.has(criteria.ageCategory))
      return invalid('criteria.ageCategory is required.');
    if (subject !== undefined && typeof subject?.id !== 'string') return invalid('subject.id must be a string.');
    const id = randomUUID();
    this.verifications.set(id, {
      id,
      status: 'PENDING',
      subject: typeof subject?.id === 'string' ? subject.id : '',
      ageCategory: criteria.ageCategory,
      jurisdiction,
    });
    return json(200, { id, url: `${this.publicUrl}/verify?id=${id}`, shortUrl: `${this.publicUrl}/verify?id=${id}` });
  }

  private status(id: string): Answer {
    const verification = this.verifications.get(id);
    if (!verification) return invalid('No verification with this id.');
    const passed = verification.status === 'PASS' ? { ageCategory: verification.ageCategory.toLowerCase() } : {};
    return json(200, { id, status: verification.status, ...passed });
  }

  /** The webview: who is being checked is never shown, only the two outcomes to pick from. */
  private page(id: string): Answer {
    const verification = this.verifications.get(id);
    if (!verification)
      return html(404, document('Verification not found', '<p>This verification does not exist (or the provider was restarted).</p>'));
    if (verification.status !== 'PENDING')
      return html(200, document('Verification finished', `<p>Outcome: ${verification.status}. You can close this window.</p>`));
    const button = (outcome: string, label: string) =>
      `<form method="post" action="/verify"><input type="hidden" name="id" value="${id}"><input type="hidden" name="outcome" value="${outcome}"><button>${label}</button></form>`;
    return html(
      200,
      document(
        'Age verification (development)',
        `<p>A development stand-in for k-ID: say how the check went.</p>${button('PASS', 'I am an adult (pass)')}${button('FAIL', 'I am not (fail)')}`,
      ),
    );
  }

  private complete(form: URLSearchParams): Answer {
    const verification = this.verifications.get(form.get('id') ?? '');
    if (!verification) return html(404, document('Verification not found', '<p>This verification does not exist.</p>'));
    const outcome = form.get('outcome');
    if (outcome !== 'PASS' && outcome !== 'FAIL') return html(400, document('Unknown outcome', '<p>Pick pass or fail.</p>'));
    if (verification.status === 'PENDING') verification.status = outcome;
    return html(200, document('Verification finished', `<p>Outcome: ${verification.status}. You can close this window.</p>`));
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const document = (title: string, body: string): string =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;
