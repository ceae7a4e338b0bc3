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

describe('CachedGuildDirectory forgetting', () => {
  it('when guilds changes a guild or a channel, then what was remembered of it is asked again, and other guilds’ is kept', async () => {
    const inner = new CountingGuilds();
    inner.channels.set('1', { id: '1', type: 0, guildId: 'g1', parentId: '', name: 'a', archived: false, locked: false, tagIds: [] });
    inner.channels.set('2', { id: '2', type: 0, guildId: 'g2', parentId: '', name: 'b', archived: false, locked: false, tagIds: [] });
    inner.viewers.set('1', ['a']);
    inner.viewers.set('2', ['b']);
    const cached = new CachedGuildDirectory(inner, 60_000);
    for (const id of ['1', '2']) {
      await cached.channel(id);
      await cached.viewerIds(id);
    }
    expect(inner.calls).toBe(2);
    inner.viewers.set('1', []);
    cached.forgetGuild('g1');
    expect(await cached.viewerIds('1')).toEqual([]);
    expect(await cached.viewerIds('2')).toEqual(['b']);
    expect(inner.calls).toBe(3);
    inner.viewers.set('2', ['b', 'c']);
    cached.forgetChannel('2');
    expect(await cached.viewerIds('2')).toEqual(['b', 'c']);
    expect(inner.calls).toBe(4);
  });
});
