import { emojiView } from '@kith/platform';
import { toEmoji } from './guild.view.js';
import type { GuildsStore, IdSource } from './ports.js';
import type { EmojiRecord } from './records.js';

/** An emoji an integration wants in the guild, named by the provider's id for it. */
export interface WantedEmoji {
  sourceId: string;
  name: string;
  animated: boolean;
  roleIds: string[];
  imageUrl: string;
}

/** More than any provider's subscriber emote set: what one integration may place in a guild. */
export const MAX_MANAGED_EMOJIS = 250;

/** The platform's emoji name rules: 2 to 32 letters, digits and underscores. */
export function emojiName(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9_]/g, '').slice(0, 32);
  return clean.length >= 2 ? clean : clean.padEnd(2, '_');
}

export type SyncEmojisResult = { error: 0; emojis: EmojiRecord[]; changed: boolean } | { error: 10004 };

/**
 * Emojis an integration owns (a Twitch integration's subscriber emotes), made, renamed and deleted
 * by the integrations service as the provider's set changes, never by a member's hand.
 */
export class ManagedEmojisService {
  constructor(
    private readonly store: GuildsStore,
    private readonly ids: IdSource,
  ) {}

  /**
   * The integration's emojis become exactly `wanted` (keyed by source id; one kept per source id),
   * in one transaction; GUILD_EMOJIS_UPDATE with every emoji of the guild when anything changed.
   */
  async sync(guildId: string, integrationId: string, wanted: readonly WantedEmoji[]): Promise<SyncEmojisResult> {
    const bySource = new Map<string, WantedEmoji>();
    for (const w of wanted.slice(0, MAX_MANAGED_EMOJIS)) if (!bySource.has(w.sourceId)) bySource.set(w.sourceId, w);
    return this.store.transaction(async (tx) => {
      if (!(await tx.guilds.lock(guildId))) return { error: 10004 };
      const held = await tx.emojis.ofIntegration(guildId, integrationId);
      const heldBySource = new Map(held.map((e) => [e.source_id ?? '', e]));
      const gone = held.filter((e) => !bySource.has(e.source_id ?? '')).map((e) => e.id);
      const added: EmojiRecord[] = [];
      const changed: EmojiRecord[] = [];
      for (const w of bySource.values()) {
        const desired = {
          name: emojiName(w.name),
          role_ids: [...new Set(w.roleIds)].sort(),
          animated: w.animated,
          image_url: w.imageUrl || null,
        };
        const current = heldBySource.get(w.sourceId);
        if (!current) {
          added.push({
            id: this.ids.next(),
            guild_id: guildId,
            managed: true,
            available: true,
            integration_id: integrationId,
            source_id: w.sourceId,
            ...desired,
          });
        } else if (
          current.name !== desired.name ||
          current.animated !== desired.animated ||
          current.image_url !== desired.image_url ||
          current.role_ids.join() !== desired.role_ids.join()
        ) {
          changed.push({ ...current, ...desired });
        }
      }
      if (gone.length === 0 && added.length === 0 && changed.length === 0) return { error: 0, emojis: held, changed: false };
      await tx.emojis.delete(gone);
      await tx.emojis.insert(added);
      for (const emoji of changed) await tx.emojis.update(emoji);
      const all = await tx.emojis.list(guildId);
      await tx.emit([
        {
          name: 'GUILD_EMOJIS_UPDATE',
          audience: { guilds: [guildId] },
          data: { guild_id: guildId, emojis: all.map((e) => emojiView(toEmoji(e))) },
        },
      ]);
      return { error: 0, emojis: all.filter((e) => e.integration_id === integrationId), changed: true };
    });
  }
}
