import type { Redis } from '@kith/platform';
import type { GuildListCache } from '../domain/integrations/ports.js';

/**
 * Rendered Get Guild Integrations answers in Redis, under the guild's version: a write bumps the
 * version after its commit, so an answer read before the write and stored after it lands under a
 * version nobody asks for again. What no write of ours changes (a user's name) is at most `ttlSeconds` old.
 */
export class RedisGuildListCache implements GuildListCache {
  constructor(
    private readonly redis: Redis,
    private readonly ttlSeconds: number,
  ) {}

  async read(guildId: string, variant: string): Promise<{ version: string; body: string | undefined }> {
    const version = (await this.redis.get(`integrations-list-version:${guildId}`)) ?? '0';
    const body = await this.redis.get(`integrations-list:${guildId}:${version}:${variant}`);
    return { version, body: body ?? undefined };
  }

  async write(guildId: string, variant: string, version: string, body: string): Promise<void> {
    await this.redis.set(`integrations-list:${guildId}:${version}:${variant}`, body, 'EX', this.ttlSeconds);
  }

  async invalidate(guildIds: string[]): Promise<void> {
    if (guildIds.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const id of guildIds) pipeline.incr(`integrations-list-version:${id}`).expire(`integrations-list-version:${id}`, 86_400);
    await pipeline.exec();
  }
}
