import { describe, expect, it } from 'vitest';
import { MemoryInviteStore } from '../../test/fakes/world.js';
import { InviteCleanup } from './invite.cleanup.js';
import type { NewInvite } from './invite.types.js';

const guildInvite = (guild: string, channel: string, code: string): NewInvite => ({
  code,
  type: 0,
  guild_id: guild,
  channel_id: channel,
  inviter_id: '1',
  max_age: 0,
  max_uses: 0,
  temporary: false,
  flags: 0,
  target_type: null,
  target_user_id: null,
  target_application_id: null,
  role_ids: [],
});

describe('invites of deleted guilds and channels', () => {
  it('when a channel is deleted, then only its invites go; when the guild is deleted, all of them', async () => {
    const store = new MemoryInviteStore();
    await store.create(guildInvite('10', '20', 'aaaaaaaa'), 1000, () => []);
    await store.create(guildInvite('10', '21', 'bbbbbbbb'), 1000, () => []);
    const cleanup = new InviteCleanup(store);
    expect(await cleanup.handle({ name: 'CHANNEL_DELETE', audience: { guilds: ['10'] }, data: { id: '20', guild_id: '10' } })).toBe(1);
    expect(await store.get('aaaaaaaa')).toBeUndefined();
    expect(await store.get('bbbbbbbb')).toBeDefined();
    expect(await cleanup.handle({ name: 'GUILD_DELETE', audience: { guilds: ['10'] }, data: { id: '10' } })).toBe(1);
    expect(await store.get('bbbbbbbb')).toBeUndefined();
  });

  it('when GUILD_DELETE is a member leaving (sent to the user), then nothing goes', async () => {
    const store = new MemoryInviteStore();
    await store.create(guildInvite('10', '20', 'cccccccc'), 1000, () => []);
    expect(await new InviteCleanup(store).handle({ name: 'GUILD_DELETE', audience: { users: ['5'] }, data: { id: '10' } })).toBe(0);
    expect(await store.get('cccccccc')).toBeDefined();
  });
});
