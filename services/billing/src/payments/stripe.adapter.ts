import Stripe from 'stripe';
import {
  PaymentGatewayUnavailable,
  PaymentSourceRefused,
  type ChargeRequest,
  type ChargeResult,
  type GatewayCard,
  type PaymentGateway,
} from '../domain/ports.js';

export interface StripeAdapterOptions {
  /** Stripe's API base (`https://api.stripe.com` in production; the local gateway otherwise). */
  baseUrl: string;
  secretKey: string;
  timeoutMs: number;
  /** Retries of a request whose answer was lost; each carries the same idempotency key. */
  maxNetworkRetries: number;
}

/**
 * The payment gateway over Stripe's REST API through its official Node client: customers,
 * payment methods attached to them (the platform's payment sources), payment intents confirmed at
 * once (with a `return_url` for cards that need the customer's authentication) and refunds.
 * Every POST carries an idempotency key, so a retry after a lost answer never charges twice.
 */
export class StripeAdapter implements PaymentGateway {
  private readonly stripe: Stripe;

  constructor(options: StripeAdapterOptions) {
    const url = new URL(options.baseUrl);
    this.stripe = new Stripe(options.secretKey, {
      host: url.hostname,
      port: url.port || (url.protocol === 'https:' ? 443 : 80),
      protocol: url.protocol === 'https:' ? 'https' : 'http',
      timeout: options.timeoutMs,
      maxNetworkRetries: options.maxNetworkRetries,
      telemetry: false,
    });
  }

  async createCustomer(userId: string, idempotencyKey: string): Promise<string> {
    const customer = await this.call(() => this.stripe.customers.create({ metadata: { user_id: userId } }, { idempotencyKey }));
    return customer.id;
  }

  async attachSource(customerId: string, token: string, idempotencyKey: string): Promise<GatewayCard> {
    // A token from Stripe.js (`tok_…`) becomes a payment method first; a payment method id is attached as is.
    const methodId = token.startsWith('tok_')
      ? (
          await this.call(() =>
            this.stripe.paymentMethods.create({ type: 'card', card: { token } }, { idempotencyKey: `${idempotencyKey}:pm` }),
          )
        ).id
      : token;
    const method = await this.call(() =>
      this.stripe.paymentMethods.attach(methodId, { customer: customerId }, { idempotencyKey: `${idempotencyKey}:attach` }),
    );
    const card = method.card;
    return {
      gatewaySourceId: method.id,
      brand: card?.brand ?? null,
      last4: card?.last4 ?? null,
      expMonth: card?.exp_month ?? null,
      expYear: card?.exp_year ?? null,
      country: card?.country ?? null,
    };
  }

  async detachSource(gatewaySourceId: string): Promise<void> {
    await this.call(() => this.stripe.paymentMethods.detach(gatewaySourceId));
  }

  async charge(request: ChargeRequest): Promise<ChargeResult> {
    try {
      const intent = await this.call(() =>
        this.stripe.paymentIntents.create(
          {
            amount: request.amount,
            currency: request.currency,
            customer: request.customerId,
            payment_method: request.gatewaySourceId,
            description: request.description,
            // Keys in one order: a request sent again (from a stored copy) is the same request.
            metadata: Object.fromEntries(Object.entries(request.metadata).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
            confirm: true,
            ...(request.offSession ? { off_session: true } : request.returnUrl ? { return_url: request.returnUrl } : {}),
          },
          { idempotencyKey: request.idempotencyKey },
        ),
      );
      return resultOf(intent);
    } catch (err) {
      if (err instanceof PaymentSourceRefused) return { status: 'declined', gatewayPaymentId: null, declineCode: err.declineCode };
      if (err instanceof DeclinedWithIntent) return { status: 'declined', gatewayPaymentId: err.intentId, declineCode: err.declineCode };
      throw err;
    }
  }

  async retrieve(gatewayPaymentId: string): Promise<ChargeResult> {
    return resultOf(await this.call(() => this.stripe.paymentIntents.retrieve(gatewayPaymentId)));
  }

  async findCharge(paymentId: string): Promise<ChargeResult | null> {
    // Stripe's search (query language over metadata); payment ids are snowflakes (digits only).
    if (!/^\d+$/.test(paymentId)) return null;
    const found = await this.call(() => this.stripe.paymentIntents.search({ query: `metadata['payment_id']:'${paymentId}'`, limit: 1 }));
    const intent = found.data[0];
    return intent ? resultOf(intent) : null;
  }

  async cancel(gatewayPaymentId: string, idempotencyKey: string): Promise<ChargeResult> {
    try {
      return resultOf(await this.call(() => this.stripe.paymentIntents.cancel(gatewayPaymentId, {}, { idempotencyKey })));
    } catch (err) {
      // Too late to cancel (it succeeded, or was canceled already): where it stands is the answer.
      if (err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'payment_intent_unexpected_state')
        return this.retrieve(gatewayPaymentId);
      throw err;
    }
  }

  async refund(gatewayPaymentId: string, idempotencyKey: string, amount?: number): Promise<{ amount: number }> {
    const refund = await this.call(() =>
      this.stripe.refunds.create({ payment_intent: gatewayPaymentId, ...(amount !== undefined ? { amount } : {}) }, { idempotencyKey }),
    );
    return { amount: refund.amount };
  }

  /** Stripe's errors → the domain's: unreachable or late, a refused card, or a bug of ours. */
  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof Stripe.errors.StripeError)) throw err;
      if (err instanceof Stripe.errors.StripeConnectionError)
        throw new PaymentGatewayUnavailable(/timeout/i.test(err.message) ? 'timeout' : 'unavailable', err.message);
      if (err instanceof Stripe.errors.StripeAPIError || (err.statusCode ?? 0) >= 500 || err instanceof Stripe.errors.StripeRateLimitError)
        throw new PaymentGatewayUnavailable('unavailable', err.message);
      if (err instanceof Stripe.errors.StripeCardError) {
        const code = err.decline_code ?? err.code ?? 'card_declined';
        if (err.payment_intent?.id) throw new DeclinedWithIntent(err.payment_intent.id, code);
        throw new PaymentSourceRefused(code);
      }
      if (
        err instanceof Stripe.errors.StripeInvalidRequestError &&
        (err.code === 'resource_missing' || err.param === 'card[token]' || err.param === 'payment_method')
      )
        throw new PaymentSourceRefused(err.code ?? 'invalid_request');
      throw err;
    }
  }
}

class DeclinedWithIntent extends Error {
  constructor(
    readonly intentId: string,
    readonly declineCode: string,
  ) {
    super(`declined: ${declineCode}`);
  }
}

function resultOf(intent: Stripe.PaymentIntent): ChargeResult {
  switch (intent.status) {
    case 'canceled':
      return { status: 'declined', gatewayPaymentId: intent.id, declineCode: 'canceled' };
    case 'succeeded':
      return { status: 'succeeded', gatewayPaymentId: intent.id };
    case 'requires_action':
    case 'requires_confirmation':
      return { status: 'requires_action', gatewayPaymentId: intent.id, redirectUrl: intent.next_action?.redirect_to_url?.url ?? null };
    case 'processing':
      return { status: 'processing', gatewayPaymentId: intent.id };
    default:
      return {
        status: 'declined',
        gatewayPaymentId: intent.id,
        declineCode: intent.last_payment_error?.decline_code ?? intent.last_payment_error?.code ?? 'card_declined',
      };
  }
}
