import { describe, expect, it } from 'vitest';
import { staleOf } from './guild-changes.js';

describe('staleOf', () => {
  it('when guilds changes a member, role, channel, thread or guild, then that guild (and the channel) is stale', () => {
    expect(staleOf({ name: 'GUILD_MEMBER_REMOVE', data: { guild_id: '1', user: { id: '9' } } })).toEqual({ guildId: '1' });
    expect(staleOf({ name: 'GUILD_ROLE_UPDATE', data: { guild_id: '1', role: { id: '5' } } })).toEqual({ guildId: '1' });
    expect(staleOf({ name: 'CHANNEL_UPDATE', data: { id: '7', guild_id: '1' } })).toEqual({ guildId: '1', channelId: '7' });
    expect(staleOf({ name: 'THREAD_DELETE', data: { id: '8', guild_id: '1', parent_id: '7' } })).toEqual({ guildId: '1', channelId: '8' });
    expect(staleOf({ name: 'GUILD_DELETE', data: { id: '1' } })).toEqual({ guildId: '1' });
  });

  it('when an event has no guild or channel (a DM channel, a malformed one), then nothing is stale but the channel', () => {
    expect(staleOf({ name: 'CHANNEL_UPDATE', data: { id: '7' } })).toEqual({ channelId: '7' });
    expect(staleOf({ name: 'USER_UPDATE', data: { id: '3' } })).toEqual({});
    expect(staleOf({ name: 'GUILD_MEMBER_ADD' })).toEqual({});
  });
});
