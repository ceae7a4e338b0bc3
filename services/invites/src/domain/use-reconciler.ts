import type { Logger } from '@kith/platform';
import { InviteType } from './invite.types.js';
import type { GuildDirectory, InviteStore, SocialDirectory, UseReservation } from './ports.js';
import { confirmUse } from './use-confirm.js';

/** Reservations settled per pass, and how long a pass's claim on them lasts. */
const BATCH = 100;
const LEASE_MS = 60_000;

export interface ReconcilerOptions {
  /** How often expired reservations are looked for. */
  intervalMs: number;
  logger: Logger;
}

/**
 * Settles the reserved uses whose accept never confirmed nor gave them back (its process died, or
 * guilds' answer never came): each counts when the join it was for happened (the user is a member,
 * a recipient, a friend of the inviter), and is freed otherwise. Several replicas may run it: each
 * claims different reservations.
 */
export class UseReconciler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly store: Pick<InviteStore, 'claimExpiredReservations' | 'confirmUse' | 'releaseUse'>,
    private readonly guilds: Pick<GuildDirectory, 'member' | 'channel' | 'channelUsersWith'>,
    private readonly social: Pick<SocialDirectory, 'friendIds'>,
    private readonly options: ReconcilerOptions,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.runOnce()
        .then(() => undefined)
        .catch((err: unknown) => this.options.logger.error({ err }, 'use reconciliation failed'))
        .finally(() => (this.running = undefined));
    }, this.options.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One pass: the number of reservations settled. */
  async runOnce(): Promise<number> {
    const expired = await this.store.claimExpiredReservations(BATCH, LEASE_MS);
    for (const r of expired) await this.settle(r);
    return expired.length;
  }

  private async settle(r: UseReservation): Promise<void> {
    if (!(await this.happened(r))) return this.store.releaseUse(r.id);
    await confirmUse(this.store, this.guilds, r.invite, r.id);
  }

  /** Whether the join the reservation was for took place. */
  private async happened({ invite, userId }: UseReservation): Promise<boolean> {
    if (invite.type === InviteType.GROUP_DM) {
      const channel = invite.channel_id ? await this.guilds.channel(invite.channel_id) : undefined;
      return channel?.recipientIds.includes(userId) ?? false;
    }
    if (invite.type === InviteType.FRIEND) return (await this.social.friendIds(userId)).includes(invite.inviter_id);
    return invite.guild_id ? (await this.guilds.member(invite.guild_id, userId)) !== undefined : false;
  }
}
