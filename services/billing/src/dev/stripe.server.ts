import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { cardFor, type TestCard } from './stripe.cards.js';

/**
 * A local payment gateway speaking Stripe's REST API (the part this service uses: customers,
 * payment methods, payment intents, refunds), so that Stripe's official client talks to it
 * unmodified. It accepts Stripe's documented test cards and tokens and behaves as they do
 * (declines, authentication required), honours idempotency keys as Stripe does, and can be told
 * (under /__kith) to be down, time out, fail or drop a connection after charging. `npm start`
 * runs it so a newcomer can subscribe without keys; tests run it on loopback and count charges.
 */

type Json = Record<string, unknown>;
type Params = Record<string, unknown>;

interface Intent extends Json {
  id: string;
  amount: number;
  currency: string;
  customer: string | null;
  payment_method: string | null;
  status: string;
  metadata: Record<string, string>;
  amount_received: number;
}

export type FaultMode = 'down' | 'timeout' | 'error' | 'drop_after_charge' | 'hang_after_charge';
interface Fault {
  mode: FaultMode;
  times: number;
  userId: string | null;
}

interface Answer {
  status: number;
  body: Json;
}

export interface StripeServerOptions {
  /** The secret key clients must present; unset, any `sk_test_` key is taken (local development). */
  secretKey?: string;
}

export class StripeServer {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly customers = new Map<string, Json>();
  private readonly methods = new Map<string, Json & { card: Json; behaviour: TestCard['behaviour']; customer: string | null }>();
  private readonly intents = new Map<string, Intent>();
  private readonly refunds = new Map<string, Json>();
  private readonly idempotent = new Map<string, { hash: string; answer: Promise<Answer> }>();
  private faults: Fault[] = [];
  private publicUrl = '';

  constructor(private readonly options: StripeServerOptions = {}) {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  async listen(port = 0, host = '127.0.0.1', publicUrl?: string): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(port, host, resolve));
    const address = this.server.address() as AddressInfo;
    this.publicUrl = publicUrl ?? `http://${host}:${address.port}`;
    return `http://${host}:${address.port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Succeeded charges (payment intents that took money), for one user or all. */
  charges(userId?: string): Intent[] {
    return [...this.intents.values()].filter((i) => i.status === 'succeeded' && (!userId || i.metadata.user_id === userId));
  }

  /** Refunds made (money given back), for one user's charges or all. */
  refundsOf(userId?: string): Json[] {
    return [...this.refunds.values()].filter((r) => !userId || (r.metadata as Record<string, string>).user_id === userId);
  }

  /** The next `times` payment intent requests (of one user, or anyone's) meet `mode`. */
  injectFault(mode: FaultMode, times: number, userId: string | null = null): void {
    this.faults.push({ mode, times, userId });
  }

  /** What the customer does on the authentication page: the intent then succeeds. */
  authenticate(intentId: string): Intent | undefined {
    const intent = this.intents.get(intentId);
    if (!intent || intent.status !== 'requires_action') return intent;
    this.succeed(intent);
    return intent;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const url = new URL(req.url ?? '/', 'http://local');
      const raw = await readBody(req);
      if (url.pathname === '/healthz') return send(res, { status: 200, body: { ok: true } });
      if (url.pathname.startsWith('/__kith/')) return this.control(req, res, url, raw);
      if (!this.authorized(req.headers.authorization))
        return send(res, stripeError(401, 'invalid_request_error', 'Invalid API Key provided.'));
      const params = req.method === 'GET' ? parseForm(url.searchParams) : parseForm(new URLSearchParams(raw));
      const fault = url.pathname === '/v1/payment_intents' && req.method === 'POST' ? this.takeFault(params) : undefined;
      if (fault === 'down') return void req.socket.destroy();
      if (fault === 'timeout') return; // never answered: the client's deadline passes
      if (fault === 'error') return send(res, stripeError(500, 'api_error', 'An unknown error occurred.'));
      const key = req.headers['idempotency-key'];
      const answer =
        typeof key === 'string' && req.method === 'POST'
          ? await this.once(key, req, raw, params)
          : this.route(req.method ?? 'GET', url.pathname, params);
      if (fault === 'drop_after_charge') return void req.socket.destroy();
      // Charged, and the caller never hears back: it may die waiting (tests kill it here).
      if (fault === 'hang_after_charge') return void (await answer);
      send(res, await answer);
    } catch (err) {
      send(res, stripeError(500, 'api_error', (err as Error).message));
    }
  }

  /** Stripe's idempotency: one key, one answer, replayed; the same key with other parameters is an error. */
  private once(key: string, req: IncomingMessage, raw: string, params: Params): Promise<Answer> {
    const hash = createHash('sha256').update(`${req.method} ${req.url}\n${raw}`).digest('hex');
    const known = this.idempotent.get(key);
    if (known) {
      if (known.hash !== hash)
        return Promise.resolve(
          stripeError(
            400,
            'idempotency_error',
            `Keys for idempotent requests can only be used with the same parameters they were first used with.`,
          ),
        );
      return known.answer;
    }
    const answer = Promise.resolve().then(() => this.route(req.method ?? 'POST', new URL(req.url ?? '/', 'http://local').pathname, params));
    this.idempotent.set(key, { hash, answer });
    return answer;
  }

  private takeFault(params: Params): FaultMode | undefined {
    const userId = (params.metadata as Record<string, string> | undefined)?.user_id ?? null;
    const fault = this.faults.find((f) => f.times > 0 && (f.userId === null || f.userId === userId));
    if (!fault) return undefined;
    fault.times -= 1;
    this.faults = this.faults.filter((f) => f.times > 0);
    return fault.mode;
  }

  private authorized(header: string | undefined): boolean {
    const key = /^Bearer (.+)$/.exec(header ?? '')?.[1];
    if (!key) return false;
    if (!this.options.secretKey) return key.startsWith('sk_test_');
    const a = createHash('sha256').update(key).digest();
    const b = createHash('sha256').update(this.options.secretKey).digest();
    return timingSafeEqual(a, b);
  }

  private route(method: string, path: string, p: Params): Answer {
    const parts = path.split('/').filter(Boolean);
    if (parts[0] !== 'v1') return stripeError(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path}).`);
    const [, resource, id, action] = parts;
    if (resource === 'customers' && method === 'POST' && !id) return this.createCustomer(p);
    if (resource === 'customers' && method === 'GET' && id) return this.found(this.customers.get(id), 'customer', id);
    if (resource === 'payment_methods' && method === 'POST' && !id) return this.createMethod(p);
    if (resource === 'payment_methods' && method === 'POST' && id && action === 'attach') return this.attach(id, p);
    if (resource === 'payment_methods' && method === 'POST' && id && action === 'detach') return this.detach(id);
    if (resource === 'payment_methods' && method === 'GET' && id) return this.found(this.methods.get(id), 'payment_method', id);
    if (resource === 'payment_intents' && method === 'POST' && !id) return this.createIntent(p);
    if (resource === 'payment_intents' && method === 'POST' && id && action === 'confirm') return this.confirmIntent(id, p);
    if (resource === 'payment_intents' && method === 'POST' && id && action === 'cancel') return this.cancelIntent(id);
    if (resource === 'payment_intents' && method === 'GET' && id === 'search') return this.searchIntents(p);
    if (resource === 'payment_intents' && method === 'GET' && id) return this.found(this.intents.get(id), 'payment_intent', id);
    if (resource === 'refunds' && method === 'POST' && !id) return this.refund(p);
    return stripeError(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path}).`);
  }

  private found(object: Json | undefined, kind: string, id: string): Answer {
    if (!object) return missing(kind, id);
    return { status: 200, body: object };
  }

  private createCustomer(p: Params): Answer {
    const customer = { id: newId('cus'), object: 'customer', created: now(), livemode: false, metadata: p.metadata ?? {} };
    this.customers.set(customer.id, customer);
    return { status: 200, body: customer };
  }

  private createMethod(p: Params): Answer {
    const card = (p.card ?? {}) as Record<string, string>;
    const test = cardFor(card.token ?? card.number ?? '');
    if (!test)
      return { ...stripeError(402, 'card_error', 'Your card number is incorrect.', { code: 'incorrect_number', param: 'card[number]' }) };
    const method = this.method(test);
    return { status: 200, body: method };
  }

  private method(test: TestCard) {
    const method = {
      id: newId('pm'),
      object: 'payment_method',
      type: 'card',
      created: now(),
      livemode: false,
      customer: null as string | null,
      metadata: {},
      billing_details: { address: null, email: null, name: null, phone: null },
      card: {
        brand: test.brand,
        last4: test.last4,
        exp_month: 12,
        exp_year: new Date().getUTCFullYear() + 3,
        country: test.country,
        funding: 'credit',
      },
      behaviour: test.behaviour,
    };
    this.methods.set(method.id, method);
    return method;
  }

  private attach(id: string, p: Params): Answer {
    // Stripe's documented shortcuts (`pm_card_visa`) make a new method of that test card.
    const shortcut = this.methods.has(id) ? undefined : cardFor(id);
    const method = shortcut ? this.method(shortcut) : this.methods.get(id);
    if (!method) return missing('payment_method', id);
    const customer = String(p.customer ?? '');
    if (!this.customers.has(customer)) return missing('customer', customer);
    if (method.behaviour.startsWith('decline_on_attach'))
      return stripeError(402, 'card_error', 'Your card was declined.', {
        code: 'card_declined',
        decline_code: declineCodeOf(method.behaviour),
      });
    method.customer = customer;
    return { status: 200, body: method };
  }

  private detach(id: string): Answer {
    const method = this.methods.get(id);
    if (!method) return missing('payment_method', id);
    method.customer = null;
    return { status: 200, body: method };
  }

  private createIntent(p: Params): Answer {
    const amount = Number(p.amount);
    if (!Number.isInteger(amount) || amount < 0)
      return stripeError(400, 'invalid_request_error', 'Invalid integer: amount', { param: 'amount' });
    const methodId = typeof p.payment_method === 'string' ? p.payment_method : null;
    const method = methodId ? this.methods.get(methodId) : undefined;
    if (methodId && !method) return missing('payment_method', methodId);
    const intent: Intent = {
      id: newId('pi'),
      object: 'payment_intent',
      amount,
      amount_received: 0,
      currency: String(p.currency ?? 'usd'),
      customer: typeof p.customer === 'string' ? p.customer : null,
      payment_method: methodId,
      description: p.description ?? null,
      metadata: (p.metadata as Record<string, string>) ?? {},
      status: method ? 'requires_confirmation' : 'requires_payment_method',
      created: now(),
      livemode: false,
      next_action: null,
      last_payment_error: null,
      client_secret: '',
      return_url: p.return_url ?? null,
    };
    intent.client_secret = `${intent.id}_secret_${random(12).toString('hex')}`;
    this.intents.set(intent.id, intent);
    if (p.confirm === 'true' && method) return this.confirm(intent, method.behaviour, p.off_session === 'true', p.return_url);
    return { status: 200, body: intent };
  }

  private confirmIntent(id: string, p: Params): Answer {
    const intent = this.intents.get(id);
    if (!intent) return missing('payment_intent', id);
    const method = intent.payment_method ? this.methods.get(intent.payment_method) : undefined;
    if (!method || intent.status !== 'requires_confirmation') return { status: 200, body: intent };
    return this.confirm(intent, method.behaviour, p.off_session === 'true', p.return_url ?? intent.return_url);
  }

  private confirm(intent: Intent, behaviour: TestCard['behaviour'], offSession: boolean, returnUrl: unknown): Answer {
    if (behaviour === 'requires_auth') {
      if (offSession) return this.decline(intent, 'authentication_required', 'authentication_required');
      intent.status = 'requires_action';
      const url = `${this.publicUrl}/__kith/3ds/${intent.id}${typeof returnUrl === 'string' ? `?return_url=${encodeURIComponent(returnUrl)}` : ''}`;
      intent.next_action = { type: 'redirect_to_url', redirect_to_url: { url, return_url: returnUrl ?? null } };
      return { status: 200, body: intent };
    }
    if (behaviour !== 'ok') return this.decline(intent, 'card_declined', declineCodeOf(behaviour));
    this.succeed(intent);
    return { status: 200, body: intent };
  }

  private decline(intent: Intent, code: string, declineCode: string): Answer {
    intent.status = 'requires_payment_method';
    intent.last_payment_error = { type: 'card_error', code, decline_code: declineCode, message: 'Your card was declined.' };
    return stripeError(402, 'card_error', 'Your card was declined.', { code, decline_code: declineCode, payment_intent: intent });
  }

  private succeed(intent: Intent): void {
    intent.status = 'succeeded';
    intent.amount_received = intent.amount;
    intent.next_action = null;
    intent.latest_charge = newId('ch');
  }

  /** Stripe's search over payment intents, for the clause this service uses: `metadata['key']:'value'`. */
  private searchIntents(p: Params): Answer {
    const query = typeof p.query === 'string' ? p.query : '';
    const clause = /^metadata\['(\w+)'\]:'([^']*)'$/.exec(query.trim());
    if (!clause) return stripeError(400, 'invalid_request_error', `Invalid search query: ${query}`, { param: 'query' });
    const [, key, value] = clause;
    const limit = Math.max(1, Math.min(100, Number(p.limit ?? 10)));
    const data = [...this.intents.values()].filter((i) => i.metadata[key!] === value).slice(0, limit);
    return {
      status: 200,
      body: { object: 'search_result', url: '/v1/payment_intents/search', has_more: false, next_page: null, data },
    };
  }

  /** Stripe cancels an intent that has not taken money; one that has is refused (it must be refunded). */
  private cancelIntent(id: string): Answer {
    const intent = this.intents.get(id);
    if (!intent) return missing('payment_intent', id);
    if (intent.status === 'succeeded' || intent.status === 'canceled')
      return stripeError(
        400,
        'invalid_request_error',
        `You cannot cancel this PaymentIntent because it has a status of ${intent.status}.`,
        {
          code: 'payment_intent_unexpected_state',
          payment_intent: intent,
        },
      );
    intent.status = 'canceled';
    intent.next_action = null;
    intent.cancellation_reason = 'abandoned';
    return { status: 200, body: intent };
  }

  /** A refund of all of a charge, or of `amount` of it; never more than is left. */
  private refund(p: Params): Answer {
    const intent = typeof p.payment_intent === 'string' ? this.intents.get(p.payment_intent) : undefined;
    if (!intent) return missing('payment_intent', String(p.payment_intent));
    if (intent.status !== 'succeeded')
      return stripeError(400, 'invalid_request_error', 'This PaymentIntent does not have a successful charge to refund.');
    const refunded = Number(intent.amount_refunded ?? 0);
    const left = intent.amount - refunded;
    const amount = p.amount === undefined ? left : Number(p.amount);
    if (left <= 0)
      return stripeError(400, 'invalid_request_error', `Charge ${String(intent.latest_charge)} has already been refunded.`, {
        code: 'charge_already_refunded',
      });
    if (!Number.isInteger(amount) || amount <= 0 || amount > left)
      return stripeError(400, 'invalid_request_error', `Refund amount (${amount}) is greater than unrefunded amount on charge (${left}).`, {
        param: 'amount',
      });
    const refund = {
      id: newId('re'),
      object: 'refund',
      amount,
      currency: intent.currency,
      payment_intent: intent.id,
      charge: intent.latest_charge ?? null,
      status: 'succeeded',
      metadata: { ...intent.metadata },
      created: now(),
    };
    intent.amount_refunded = refunded + amount;
    this.refunds.set(refund.id, refund);
    return { status: 200, body: refund };
  }

  /** Test controls and the customer's authentication page; not part of Stripe's API. */
  private control(req: IncomingMessage, res: ServerResponse, url: URL, raw: string): void {
    const threeDs = /^\/__kith\/3ds\/([\w]+)$/.exec(url.pathname);
    if (threeDs) {
      const intent = this.authenticate(threeDs[1]!);
      if (!intent) return send(res, { status: 404, body: { error: 'unknown payment intent' } });
      const back = url.searchParams.get('return_url');
      if (back && /^https?:\/\//.test(back)) {
        res.writeHead(302, { location: back }).end();
        return;
      }
      return send(res, { status: 200, body: { id: intent.id, status: intent.status } });
    }
    if (url.pathname === '/__kith/charges' && req.method === 'GET') {
      const charges = this.charges(url.searchParams.get('user_id') ?? undefined);
      return send(res, {
        status: 200,
        body: { count: charges.length, amount: charges.reduce((s, c) => s + c.amount, 0), intents: charges },
      });
    }
    if (url.pathname === '/__kith/refunds' && req.method === 'GET') {
      const refunds = this.refundsOf(url.searchParams.get('user_id') ?? undefined);
      return send(res, {
        status: 200,
        body: { count: refunds.length, amount: refunds.reduce((s, r) => s + Number(r.amount), 0), refunds },
      });
    }
    if (url.pathname === '/__kith/faults' && req.method === 'POST') {
      const body = JSON.parse(raw || '{}') as { mode?: FaultMode; times?: number; user_id?: string };
      if (!body.mode || !['down', 'timeout', 'error', 'drop_after_charge', 'hang_after_charge'].includes(body.mode))
        return send(res, { status: 400, body: { error: 'mode must be down, timeout, error, drop_after_charge or hang_after_charge' } });
      this.injectFault(body.mode, Math.max(1, Math.min(1000, Number(body.times ?? 1))), body.user_id ?? null);
      return send(res, { status: 204, body: {} });
    }
    send(res, { status: 404, body: { error: 'not found' } });
  }
}

function declineCodeOf(behaviour: TestCard['behaviour']): string {
  const code = /:(\w+)$/.exec(behaviour)?.[1];
  return code ?? 'generic_decline';
}

const now = () => Math.floor(Date.now() / 1000);
const newId = (prefix: string) => `${prefix}_${random(12).toString('base64url').replace(/[-_]/g, 'x')}`;

/**
 * Random bytes cut from a pool refilled 4 KiB at a time: an id per object and a request id per
 * answer each cost a call into the CSPRNG otherwise, the largest part of this server's CPU per charge.
 */
let randomPool = Buffer.alloc(0);
let randomAt = 0;
function random(n: number): Buffer {
  if (randomAt + n > randomPool.length) {
    randomPool = randomBytes(4096);
    randomAt = 0;
  }
  randomAt += n;
  return randomPool.subarray(randomAt - n, randomAt);
}

function missing(kind: string, id: string): Answer {
  return stripeError(404, 'invalid_request_error', `No such ${kind}: '${id}'`, {
    code: 'resource_missing',
    param: kind === 'payment_method' ? 'payment_method' : 'id',
  });
}

function stripeError(status: number, type: string, message: string, extra: Json = {}): Answer {
  return { status, body: { error: { type, message, ...extra } } };
}

function send(res: ServerResponse, answer: Answer): void {
  if (res.headersSent || res.destroyed) return;
  const requestId = `req_${random(8).toString('hex')}`;
  if (answer.status === 204) {
    res.writeHead(204, { 'request-id': requestId }).end();
    return;
  }
  const body = JSON.stringify(answer.body);
  res
    .writeHead(answer.status, { 'content-type': 'application/json', 'request-id': requestId, 'content-length': Buffer.byteLength(body) })
    .end(body);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > 1_000_000) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Stripe's form encoding: `metadata[user_id]=1`, `payment_method_types[0]=card` → nested objects. */
export function parseForm(params: URLSearchParams): Params {
  const out: Params = {};
  for (const [key, value] of params) {
    const path = key.replace(/\]/g, '').split('[');
    let node = out as Record<string, unknown>;
    path.forEach((segment, i) => {
      if (segment === '__proto__' || segment === 'constructor' || segment === 'prototype') return;
      if (i === path.length - 1) node[segment] = value;
      else node = (node[segment] ??= {}) as Record<string, unknown>;
    });
  }
  return out;
}
