import { describe, expect, it } from 'vitest';
import { world } from '../../test/fakes/world.js';
import { emojiName } from './managed-emojis.service.js';

const emote = (sourceId: string, name: string, roleIds: string[] = [], animated = false) => ({
  sourceId,
  name,
  animated,
  roleIds,
  imageUrl: `https://cdn.example/${sourceId}`,
});

describe('managed emojis', () => {
  it('when an integration syncs its set, then the guild holds exactly it, ids kept by source, one GUILD_EMOJIS_UPDATE per change with every emoji', async () => {
    const w = world();
    const owner = w.user();
    const guildId = await w.guild(owner);
    const first = await w.managedEmojis.sync(guildId, '900', [emote('a', 'wave', ['77']), emote('b', 'party', [], true)]);
    expect(first).toMatchObject({ error: 0, changed: true });
    const held = await w.store.emojis.list(guildId);
    expect(held.map((e) => [e.name, e.managed, e.animated, e.available, e.role_ids])).toEqual([
      ['wave', true, false, true, ['77']],
      ['party', true, true, true, []],
    ]);
    // Another integration's emojis are its own: a sync of one leaves the other's.
    await w.managedEmojis.sync(guildId, '901', [emote('a', 'other')]);
    const waveId = held[0]!.id;
    const renamed = await w.managedEmojis.sync(guildId, '900', [emote('a', 'waves', ['77'])]);
    expect(renamed).toMatchObject({ error: 0, changed: true });
    expect((await w.store.emojis.ofIntegration(guildId, '900')).map((e) => [e.id, e.name])).toEqual([[waveId, 'waves']]);
    const events = w.store.named('GUILD_EMOJIS_UPDATE');
    expect(events).toHaveLength(3);
    expect(events.at(-1)!.data).toEqual({
      guild_id: guildId,
      emojis: (await w.store.emojis.list(guildId)).map((e) =>
        expect.objectContaining({ id: e.id, name: e.name, roles: e.role_ids, managed: true, require_colons: true }),
      ),
    });
    // The same set again changes nothing and announces nothing.
    expect(await w.managedEmojis.sync(guildId, '900', [emote('a', 'waves', ['77'])])).toMatchObject({ changed: false });
    expect(w.store.named('GUILD_EMOJIS_UPDATE')).toHaveLength(3);
    // Emptied: the integration's go, the other's stay.
    await w.managedEmojis.sync(guildId, '900', []);
    expect((await w.store.emojis.list(guildId)).map((e) => e.name)).toEqual(['other']);
  });

  it('when the guild is unknown, then 10004 and nothing is kept', async () => {
    const w = world();
    expect(await w.managedEmojis.sync('424242', '900', [emote('a', 'wave')])).toEqual({ error: 10004 });
    expect(w.store.named('GUILD_EMOJIS_UPDATE')).toHaveLength(0);
  });

  it('when a name breaks the platform’s rules, then it is made one that keeps them', () => {
    expect(emojiName('kithWave')).toBe('kithWave');
    expect(emojiName('a b-c')).toBe('abc');
    expect(emojiName('é')).toBe('__');
    expect(emojiName('x'.repeat(40))).toHaveLength(32);
  });
});
