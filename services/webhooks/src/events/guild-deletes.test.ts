import { describe, expect, it } from 'vitest';
import { removalOf } from './guild-deletes.js';

describe('removalOf', () => {
  it('when a guild channel is deleted, then its webhooks are to go; a DM closing is nothing', () => {
    expect(removalOf({ name: 'CHANNEL_DELETE', audience: {}, data: { id: '5', guild_id: '1' } })).toEqual({ channelId: '5' });
    expect(removalOf({ name: 'CHANNEL_DELETE', audience: {}, data: { id: '5' } })).toBeUndefined();
  });

  it('when a guild is deleted, then its webhooks go; a member leaving or an outage is nothing', () => {
    expect(removalOf({ name: 'GUILD_DELETE', audience: { guilds: ['1'] }, data: { id: '1' } })).toEqual({ guildId: '1' });
    expect(removalOf({ name: 'GUILD_DELETE', audience: { users: ['7'] }, data: { id: '1' } })).toBeUndefined();
    expect(removalOf({ name: 'GUILD_DELETE', audience: { guilds: ['1'] }, data: { id: '1', unavailable: true } })).toBeUndefined();
  });
});
