import { billingError } from './errors.js';
import type { SubscriptionQuery, SubscriptionStore } from './ports.js';
import type { Invoice, Subscription } from './types.js';

/** Reading the user's own subscriptions: another user's is unknown to them. */
export class SubscriptionsService {
  constructor(private readonly store: SubscriptionStore) {}

  list(userId: string, query: SubscriptionQuery): Promise<Subscription[]> {
    return this.store.list(userId, query);
  }

  async get(userId: string, id: string): Promise<{ subscription: Subscription; latestInvoice: Invoice | undefined }> {
    const subscription = await this.store.get(userId, id);
    if (!subscription) throw billingError('UNKNOWN_SUBSCRIPTION');
    return { subscription, latestInvoice: await this.store.latestInvoice(id) };
  }

  /** The latest invoice of a subscription already read (a change answers with the one it made). */
  latestInvoice(subscriptionId: string): Promise<Invoice | undefined> {
    return this.store.latestInvoice(subscriptionId);
  }

  async invoices(userId: string, id: string): Promise<Invoice[]> {
    if (!(await this.store.get(userId, id))) throw billingError('UNKNOWN_SUBSCRIPTION');
    return this.store.invoices(id);
  }
}
