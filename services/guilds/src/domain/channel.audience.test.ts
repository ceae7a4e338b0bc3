import { describe, expect, it } from 'vitest';
import type { GuildSnapshot } from './records.js';
import { channelAudience, everyoneSees, viewerIds } from './channel.audience.js';
import { assertGrantable, normaliseName } from './channel.service.js';
import { Permission } from './permissions.js';

const VIEW = Permission.VIEW_CHANNEL;
const guild: GuildSnapshot = {
  guildId: '100',
  ownerId: '1',
  roles: new Map([
    ['100', VIEW],
    ['200', 0n],
    ['300', Permission.ADMINISTRATOR],
  ]),
  members: [
    { userId: '1', roleIds: [] },
    { userId: '2', roleIds: ['200'] },
    { userId: '3', roleIds: [] },
    { userId: '4', roleIds: ['300'] },
  ],
};

describe('channel audiences', () => {
  it('when nothing hides the channel, then the guild is the audience', () => {
    expect(channelAudience(guild, [[]])).toEqual({ guilds: ['100'] });
    expect(everyoneSees('100', VIEW, [{ id: '200', type: 0, allow: VIEW, deny: 0n }])).toBe(true);
  });

  it('when @everyone is denied and a role allowed, then the owner, administrators and the role see it', () => {
    const hidden = [
      { id: '100', type: 0, allow: 0n, deny: VIEW },
      { id: '200', type: 0, allow: VIEW, deny: 0n },
    ];
    expect(channelAudience(guild, [hidden])).toEqual({ users: ['1', '2', '4'] });
  });

  it('when one member is denied, then everyone else is addressed by id', () => {
    const overwrites = [{ id: '3', type: 1, allow: 0n, deny: VIEW }];
    expect(everyoneSees('100', VIEW, overwrites)).toBe(false);
    expect(viewerIds(guild, overwrites)).toEqual(['1', '2', '4']);
  });

  it('when a change hides a channel, then those who saw it before hear of it too', () => {
    const after = [{ id: '100', type: 0, allow: 0n, deny: VIEW }];
    expect(channelAudience(guild, [[], after])).toEqual({ users: ['1', '2', '3', '4'] });
    expect(channelAudience(guild, [after])).toEqual({ users: ['1', '4'] });
  });

  it('when @everyone lacks VIEW_CHANNEL in the guild, then an @everyone allow overwrite makes it public', () => {
    const closed = { ...guild, roles: new Map([['100', 0n]]) };
    expect(channelAudience(closed, [[]])).toEqual({ users: ['1'] });
    expect(channelAudience(closed, [[{ id: '100', type: 0, allow: VIEW, deny: 0n }]])).toEqual({ guilds: ['100'] });
  });
});

describe('channel rules', () => {
  it('when a text channel is named, then it is lowercase with dashes; voice and categories keep their name', () => {
    expect(normaliseName(0, '  Hello   World ')).toBe('hello-world');
    expect(normaliseName(2, ' Lounge Room ')).toBe('Lounge Room');
    expect(normaliseName(4, 'Info')).toBe('Info');
  });

  it('when overwrites grant what the caller lacks or MANAGE_ROLES without administrator, then they are refused', () => {
    const held = VIEW | Permission.MANAGE_CHANNELS | Permission.MANAGE_ROLES;
    expect(() => assertGrantable(held, [{ id: '1', type: 0, allow: VIEW, deny: 0n }])).not.toThrow();
    expect(() => assertGrantable(held, [{ id: '1', type: 0, allow: Permission.BAN_MEMBERS, deny: 0n }])).toThrow('Missing Permissions');
    expect(() => assertGrantable(held, [{ id: '1', type: 0, allow: 0n, deny: Permission.MANAGE_ROLES }])).toThrow('Missing Permissions');
    expect(() => assertGrantable(Permission.ADMINISTRATOR, [{ id: '1', type: 0, allow: Permission.MANAGE_ROLES, deny: 0n }])).not.toThrow();
  });
});
