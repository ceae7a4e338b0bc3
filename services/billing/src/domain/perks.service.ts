import { ApiError } from '@kith/platform';

/** The services that hold billing's perks: auth (a user's premium type), guilds (a guild's boost count). */
export interface PerkTargets {
  setPremiumType(userId: string, premiumType: number): Promise<void>;
  setGuildBoosts(guildId: string, count: number): Promise<void>;
}

export interface PerkMark {
  kind: 'user' | 'guild';
  target_id: string;
}

export interface PerkStore {
  pending(limit: number): Promise<PerkMark[]>;
  /**
   * Runs `push` with the mark's current value (premium type or boost count), one pusher per target
   * at a time, and clears the mark if nothing marked it again meanwhile.
   */
  push(mark: PerkMark, push: (value: number) => Promise<void>): Promise<void>;
}

/**
 * Pushes marked perks to their services: right after the change that marked them, and from the
 * scheduler for anything a crash or an unreachable service left. A target the service no longer
 * knows (a deleted guild) is dropped.
 */
export class PerksService {
  private running: Promise<void> | undefined;

  constructor(
    private readonly store: PerkStore,
    private readonly targets: PerkTargets,
    private readonly onError: (err: unknown, mark: PerkMark) => void,
  ) {}

  private again = false;

  /**
   * Pushes everything marked. Calls while a flush runs share it, and it goes round once more for
   * them, so every caller's marks are pushed when its promise settles, however many call at once.
   */
  flush(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.flushAll();
        } while (this.again);
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  private async flushAll(): Promise<void> {
    for (const mark of await this.store.pending(200)) {
      await this.store
        .push(mark, (value) =>
          mark.kind === 'user' ? this.targets.setPremiumType(mark.target_id, value) : this.targets.setGuildBoosts(mark.target_id, value),
        )
        .catch((err: unknown) => {
          // An unknown user or guild will never take it: drop the mark by pushing nothing.
          if (err instanceof ApiError && err.status === 404) return this.store.push(mark, async () => undefined);
          this.onError(err, mark);
        });
    }
  }
}
