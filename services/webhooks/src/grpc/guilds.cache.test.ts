import { describe, expect, it } from 'vitest';
import { FakeGuilds } from '../../test/fakes/world.js';
import { CachedGuildDirectory } from './guilds.cache.js';

class CountingGuilds extends FakeGuilds {
  calls = 0;
  override async viewerIds(channelId: string) {
    this.calls++;
    if (channelId === 'broken') throw new Error('down');
    return super.viewerIds(channelId);
  }
}

describe('CachedGuildDirectory', () => {
  it('when asked again within the TTL, then one call; after it, or after a failure, a new call', async () => {
    const inner = new CountingGuilds();
    inner.viewers.set('1', ['a']);
    const cached = new CachedGuildDirectory(inner, 50);
    expect(await Promise.all([cached.viewerIds('1'), cached.viewerIds('1')])).toEqual([['a'], ['a']]);
    expect(inner.calls).toBe(1);
    await new Promise((r) => setTimeout(r, 60));
    await cached.viewerIds('1');
    expect(inner.calls).toBe(2);
    await expect(cached.viewerIds('broken')).rejects.toThrow('down');
    await expect(cached.viewerIds('broken')).rejects.toThrow('down');
    expect(inner.calls).toBe(4);
  });
});
