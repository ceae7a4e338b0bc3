import type { Logger } from '@kith/platform';
import type { PerksService } from '../domain/perks.service.js';
import type { PurchaseService } from '../domain/purchase.service.js';
import type { RenewalsService } from '../domain/renewals.service.js';
import type { SettlementsService } from '../domain/settlements.service.js';

/**
 * Runs the renewals that are due and pushes pending perks, every `pollMs`, in every replica: the
 * subscriptions each replica takes are locked with SKIP LOCKED, so replicas share the work and
 * never handle one subscription twice. Work missed while no replica ran is simply due, and done
 * at the next tick.
 */
export class RenewalScheduler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly renewals: RenewalsService,
    private readonly perks: PerksService,
    private readonly settlements: SettlementsService,
    private readonly purchases: PurchaseService,
    private readonly options: { pollMs: number; batch: number },
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  /**
   * One pass: payments requests left pending (settled, or refunded), purchases their askers
   * abandoned, due subscriptions (up to a batch each), then perks. Tests call it after moving the clock.
   */
  tick(): Promise<void> {
    this.running ??= (async () => {
      try {
        await this.settlements.recover(this.options.batch, (err, paymentId) =>
          this.logger.warn({ err, paymentId }, 'settling a payment failed; the next pass asks again'),
        );
        await this.purchases.recover(this.options.batch, (err) =>
          this.logger.warn({ err }, 'finishing an abandoned purchase failed; the next pass asks again'),
        );
        await this.renewals.runDue(this.options.batch);
        await this.perks.flush();
      } catch (err) {
        this.logger.error({ err }, 'renewal pass failed');
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick().finally(() => this.schedule()), this.options.pollMs);
    this.timer.unref();
  }
}
