import { createHash } from 'node:crypto';
import type { DomainEvent } from '@kith/platform';
import { billingError } from './errors.js';
import { gatewayFailure } from './gateway-errors.js';
import type { Ids, PaymentGateway, PaymentSourceStore } from './ports.js';
import type { BillingAddress, PaymentSource } from './types.js';

export interface AddSource {
  token: string;
  billing_address: BillingAddress;
}

/** The user's payment sources: cards attached to their customer at the gateway. */
export class PaymentSourcesService {
  constructor(
    private readonly store: PaymentSourceStore,
    private readonly gateway: PaymentGateway,
    private readonly ids: Ids,
  ) {}

  list(userId: string): Promise<PaymentSource[]> {
    return this.store.list(userId);
  }

  async get(userId: string, id: string): Promise<PaymentSource> {
    const source = await this.store.get(userId, id);
    if (!source) throw billingError('UNKNOWN_PAYMENT_SOURCE');
    return source;
  }

  /** The user's customer at the gateway, made once (its idempotency key is the user's). */
  async customerOf(userId: string): Promise<string> {
    const known = await this.store.customerOf(userId);
    if (known) return known;
    try {
      const made = await this.gateway.createCustomer(userId, `kith_customer_${userId}`);
      return await this.store.saveCustomer(userId, made);
    } catch (err) {
      throw gatewayFailure(err);
    }
  }

  async add(userId: string, input: AddSource): Promise<PaymentSource> {
    const customer = await this.customerOf(userId);
    // One attempt per (user, token): a retried request attaches the same card once.
    const key = `kith_source_${createHash('sha256').update(`${userId}\n${input.token}`).digest('hex').slice(0, 40)}`;
    const card = await this.gateway.attachSource(customer, input.token, key).catch((err: unknown) => {
      throw gatewayFailure(err);
    });
    return this.store.add(
      {
        id: this.ids.next(),
        user_id: userId,
        gateway_source_id: card.gatewaySourceId,
        brand: card.brand,
        last_4: card.last4,
        expires_month: card.expMonth,
        expires_year: card.expYear,
        country: card.country ?? input.billing_address.country,
        billing_address: input.billing_address,
      },
      () => [sourcesUpdated(userId)],
    );
  }

  async update(
    userId: string,
    id: string,
    patch: { billing_address?: BillingAddress; default?: boolean; expires_month?: number; expires_year?: number },
  ): Promise<PaymentSource> {
    const { default: isDefault, ...rest } = patch;
    const updated = await this.store.update(userId, id, { ...rest, ...(isDefault !== undefined ? { is_default: isDefault } : {}) }, () => [
      sourcesUpdated(userId),
    ]);
    if (!updated) throw billingError('UNKNOWN_PAYMENT_SOURCE');
    return updated;
  }

  async remove(userId: string, id: string, inUse: (sourceId: string) => Promise<boolean>): Promise<void> {
    const source = await this.get(userId, id);
    // A source a live subscription pays with stays until the subscription moves to another.
    if (await inUse(source.id)) throw billingError('INVALID_PAYMENT_SOURCE');
    await this.gateway.detachSource(source.gateway_source_id).catch((err: unknown) => {
      throw gatewayFailure(err);
    });
    await this.store.remove(userId, id, () => [sourcesUpdated(userId)]);
  }
}

const sourcesUpdated = (userId: string): DomainEvent => ({
  name: 'USER_PAYMENT_SOURCES_UPDATE',
  audience: { users: [userId] },
  data: null,
});
