import type { GuildDirectory, GuildSummary } from '../domain/ports.js';
import type { ChannelInfo } from '../domain/webhook.types.js';
import type { GuildForgetting } from '../events/guild-changes.js';

interface Entry<T> {
  value: Promise<T>;
  until: number;
}

/**
 * What executions ask guilds on every message (the channel, who sees it, the guild's roles),
 * remembered for a moment: a webhook posting many messages a second asks once per `ttlMs`, and
 * concurrent asks share one call. Guilds' events make it forget at once (`GuildChanges`: a member
 * removed, a role, overwrite or channel changed); one missed shows here at most `ttlMs` later.
 * Webhook management (permission checks) does not go through this.
 */
export class CachedGuildDirectory implements GuildDirectory, GuildForgetting {
  private readonly channels = new Map<string, Entry<ChannelInfo | undefined>>();
  private readonly viewers = new Map<string, Entry<string[]>>();
  private readonly roles = new Map<string, Entry<Set<string>>>();
  /** The guild of each channel remembered (from its answer), to forget a guild's channels together. */
  private readonly guildOf = new Map<string, string>();

  constructor(
    private readonly inner: GuildDirectory,
    private readonly ttlMs = 1000,
    private readonly maxEntries = 10_000,
  ) {}

  channel(channelId: string): Promise<ChannelInfo | undefined> {
    return this.remember(this.channels, channelId, async () => {
      const channel = await this.inner.channel(channelId);
      if (channel?.guildId) {
        if (this.guildOf.size >= this.maxEntries) {
          // Audiences whose guild is no longer known could not be forgotten with it.
          this.guildOf.clear();
          this.viewers.clear();
        }
        this.guildOf.set(channelId, channel.guildId);
      }
      return channel;
    });
  }

  forgetGuild(guildId: string): void {
    this.roles.delete(guildId);
    for (const [channelId, guild] of this.guildOf) {
      if (guild !== guildId) continue;
      this.viewers.delete(channelId);
      this.channels.delete(channelId);
      this.guildOf.delete(channelId);
    }
  }

  forgetChannel(channelId: string): void {
    this.viewers.delete(channelId);
    this.channels.delete(channelId);
  }

  viewerIds(channelId: string): Promise<string[]> {
    return this.remember(this.viewers, channelId, () => this.inner.viewerIds(channelId));
  }

  roleIds(guildId: string): Promise<Set<string>> {
    return this.remember(this.roles, guildId, () => this.inner.roleIds(guildId));
  }

  guild(guildId: string): Promise<GuildSummary | undefined> {
    return this.inner.guild(guildId);
  }

  permissions(userId: string, guildId: string, channelId: string): Promise<bigint | undefined> {
    return this.inner.permissions(userId, guildId, channelId);
  }

  async unarchiveThread(threadId: string): Promise<void> {
    await this.inner.unarchiveThread(threadId);
    this.channels.delete(threadId);
  }

  createForumThread(thread: Parameters<GuildDirectory['createForumThread']>[0]): Promise<void> {
    return this.inner.createForumThread(thread);
  }

  private remember<T>(map: Map<string, Entry<T>>, key: string, load: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const hit = map.get(key);
    if (hit && hit.until > now) return hit.value;
    if (map.size >= this.maxEntries) map.clear();
    const value = load();
    map.set(key, { value, until: now + this.ttlMs });
    // A failed call is not remembered: the next ask tries again.
    value.catch(() => map.get(key)?.value === value && map.delete(key));
    return value;
  }
}
