import { ApiError, type DomainEvent } from '@kith/platform';
import { billingError } from './errors.js';
import { slotEvent } from './ledger.js';
import type { Clock, Ids, SlotRecord } from './ports.js';
import { grantsPerks } from './status.js';
import { SubscriptionStatus as S, type SubscriptionStatus } from './types.js';

/** A slot with what its subscription says about it. */
export interface SlotState extends SlotRecord {
  status: SubscriptionStatus;
  period_end: Date;
  pause_ends_at: Date | null;
}

/** A guild boost (the platform's premium guild subscription). */
export interface Boost {
  id: string;
  slot_id: string;
  user_id: string;
  guild_id: string;
  ended: boolean;
  status: SubscriptionStatus;
  pause_ends_at: Date | null;
}

export interface BoostTx {
  slots(ids: string[]): Promise<SlotState[]>;
  changesSince(since: Date): Promise<Date[]>;
  insertBoost(boost: { id: string; slot_id: string; user_id: string; guild_id: string; created_at: Date }): Promise<void>;
  endBoost(boostId: string, at: Date): Promise<void>;
  boost(boostId: string): Promise<Boost | undefined>;
  recordChange(at: Date): Promise<void>;
  setSlot(slotId: string, patch: { canceled?: boolean; cooldown_ends_at?: Date }): Promise<void>;
  markGuild(guildId: string): Promise<void>;
  emit(events: DomainEvent[]): Promise<void>;
}

export interface BoostStore {
  /** Runs `fn` with the user's boosts locked (one change of theirs at a time). */
  forUser<T>(userId: string, fn: (tx: BoostTx) => Promise<T>): Promise<T>;
  slotsOf(userId: string): Promise<SlotState[]>;
  appliedBy(userId: string): Promise<Boost[]>;
  appliedTo(guildId: string): Promise<Boost[]>;
  changesSince(userId: string, since: Date): Promise<Date[]>;
}

export interface GuildMembership {
  /** Whether the guild exists, and whether the user is in it. */
  membership(guildId: string, userId: string): Promise<'member' | 'not_member' | 'unknown_guild'>;
}

export interface BoostRules {
  /** Changes (applications and removals) a user may make in a window before the cooldown applies. */
  changeLimit: number;
  windowDays: number;
}

const DAY = 86_400_000;

/**
 * Boost slots and the guild boosts they hold. Applying or removing a boost is a change: a user
 * makes at most `changeLimit` in a window, and a slot just moved waits out its own cooldown before
 * moving again. Each user's changes are serialised, so concurrent applications never use a slot
 * twice nor more slots than the user holds.
 */
export class BoostsService {
  constructor(
    private readonly store: BoostStore,
    private readonly guilds: GuildMembership,
    private readonly ids: Ids,
    private readonly clock: Clock,
    private readonly rules: BoostRules,
  ) {}

  slots(userId: string): Promise<SlotState[]> {
    return this.store.slotsOf(userId);
  }

  async applied(userId: string, pausedOnly: boolean): Promise<Boost[]> {
    const boosts = await this.store.appliedBy(userId);
    return pausedOnly ? boosts.filter((b) => b.status === S.PAUSED) : boosts;
  }

  async ofGuild(userId: string, guildId: string): Promise<Boost[]> {
    await this.requireMember(guildId, userId);
    return this.store.appliedTo(guildId);
  }

  async cooldown(userId: string): Promise<{ ends_at: Date; limit: number; remaining: number }> {
    if ((await this.store.slotsOf(userId)).length === 0) throw billingError('UNKNOWN_COOLDOWN');
    const now = this.clock.now();
    const changes = await this.store.changesSince(userId, new Date(now.getTime() - this.rules.windowDays * DAY));
    const oldest = changes[0];
    return {
      ends_at: oldest ? new Date(oldest.getTime() + this.rules.windowDays * DAY) : now,
      limit: this.rules.changeLimit,
      remaining: Math.max(0, this.rules.changeLimit - changes.length),
    };
  }

  async apply(userId: string, guildId: string, slotIds: string[]): Promise<Boost[]> {
    await this.requireMember(guildId, userId);
    const unique = [...new Set(slotIds)];
    return this.store.forUser(userId, async (tx) => {
      const now = this.clock.now();
      const slots = await tx.slots(unique);
      if (slots.length !== unique.length || slots.some((s) => s.user_id !== userId)) throw billingError('UNKNOWN_SLOT');
      for (const slot of slots) {
        if (!grantsPerks(slot.status)) throw billingError('INVALID_SUBSCRIPTION');
        if (slot.boost?.guild_id === guildId) throw billingError('INVALID_SUBSCRIPTION_ITEM');
        if (slot.cooldown_ends_at && slot.cooldown_ends_at > now)
          throw billingError('BOOST_COOLDOWN', { cooldown_ends_at: slot.cooldown_ends_at.toISOString() });
      }
      await this.spendChanges(tx, now, slots.length);
      const events: DomainEvent[] = [];
      const boosts: Boost[] = [];
      for (const slot of slots) {
        if (slot.boost) {
          // Moving a slot ends its boost where it was.
          await tx.endBoost(slot.boost.id, now);
          await tx.markGuild(slot.boost.guild_id);
          events.push(
            appliedBoostsUpdate({
              id: slot.boost.id,
              slot_id: slot.id,
              user_id: userId,
              guild_id: slot.boost.guild_id,
              ended: true,
              status: slot.status,
              pause_ends_at: null,
            }),
          );
        }
        const boost: Boost = {
          id: this.ids.next(),
          slot_id: slot.id,
          user_id: userId,
          guild_id: guildId,
          ended: false,
          status: slot.status,
          pause_ends_at: null,
        };
        const cooldown = new Date(now.getTime() + this.rules.windowDays * DAY);
        await tx.insertBoost({ id: boost.id, slot_id: slot.id, user_id: userId, guild_id: guildId, created_at: now });
        await tx.setSlot(slot.id, { cooldown_ends_at: cooldown });
        boosts.push(boost);
        events.push(appliedBoostsUpdate(boost));
        events.push(
          slotEvent('USER_PREMIUM_GUILD_SUBSCRIPTION_SLOT_UPDATE', {
            ...slot,
            cooldown_ends_at: cooldown,
            boost: { id: boost.id, guild_id: guildId, created_at: now },
          }),
        );
      }
      await tx.markGuild(guildId);
      await tx.emit(events);
      return boosts;
    });
  }

  async remove(userId: string, guildId: string, boostId: string): Promise<void> {
    await this.store.forUser(userId, async (tx) => {
      const now = this.clock.now();
      const boost = await tx.boost(boostId);
      if (!boost || boost.guild_id !== guildId || boost.ended) throw billingError('UNKNOWN_SLOT');
      if (boost.user_id !== userId) throw ApiError.of('MISSING_PERMISSIONS');
      await this.spendChanges(tx, now, 1);
      const cooldown = new Date(now.getTime() + this.rules.windowDays * DAY);
      await tx.endBoost(boostId, now);
      await tx.setSlot(boost.slot_id, { cooldown_ends_at: cooldown });
      await tx.markGuild(guildId);
      const [slot] = await tx.slots([boost.slot_id]);
      await tx.emit([
        appliedBoostsUpdate({ ...boost, ended: true }),
        ...(slot ? [slotEvent('USER_PREMIUM_GUILD_SUBSCRIPTION_SLOT_UPDATE', { ...slot, boost: null })] : []),
      ]);
    });
  }

  /** Cancel (true) or uncancel (false) a slot: a canceled one goes at the subscription's renewal. */
  async setCanceled(userId: string, slotId: string, canceled: boolean): Promise<SlotState> {
    return this.store.forUser(userId, async (tx) => {
      const [slot] = await tx.slots([slotId]);
      if (!slot || slot.user_id !== userId) throw billingError('UNKNOWN_SLOT');
      if (slot.status === S.ENDED) throw billingError('INVALID_SUBSCRIPTION');
      if (slot.canceled === canceled) throw canceled ? billingError('ALREADY_CANCELED') : billingError('INVALID_SUBSCRIPTION');
      await tx.setSlot(slotId, { canceled });
      const updated = { ...slot, canceled };
      const events: DomainEvent[] = [slotEvent('USER_PREMIUM_GUILD_SUBSCRIPTION_SLOT_UPDATE', updated)];
      if (canceled && slot.boost)
        events.push({
          name: 'GUILD_APPLIED_BOOSTS_UPDATE',
          audience: { guilds: [slot.boost.guild_id] },
          data: {
            id: slot.boost.id,
            guild_id: slot.boost.guild_id,
            user_id: userId,
            ended: false,
            ends_at: slot.period_end.toISOString(),
            pause_ends_at: null,
          },
        });
      await tx.emit(events);
      return updated;
    });
  }

  private async spendChanges(tx: BoostTx, now: Date, count: number): Promise<void> {
    const changes = await tx.changesSince(new Date(now.getTime() - this.rules.windowDays * DAY));
    if (changes.length + count > this.rules.changeLimit) throw billingError('BOOST_COOLDOWN');
    for (let i = 0; i < count; i++) await tx.recordChange(now);
  }

  private async requireMember(guildId: string, userId: string): Promise<void> {
    const membership = await this.guilds.membership(guildId, userId);
    if (membership === 'unknown_guild') throw ApiError.of('UNKNOWN_GUILD');
    if (membership === 'not_member') throw ApiError.of('MISSING_ACCESS');
  }
}

export function boostView(b: Boost, user?: unknown) {
  return {
    id: b.id,
    guild_id: b.guild_id,
    user_id: b.user_id,
    ended: b.ended,
    pause_ends_at: b.pause_ends_at?.toISOString() ?? null,
    ...(user ? { user } : {}),
  };
}

function appliedBoostsUpdate(b: Boost): DomainEvent {
  return { name: 'GUILD_APPLIED_BOOSTS_UPDATE', audience: { guilds: [b.guild_id] }, data: boostView(b) };
}
