import { describe, expect, it } from 'vitest';
import { partialUserView } from '../users.js';
import { guildCreateView, guildView, memberView, roleView, type GuildData, type MemberData, type RoleData } from './guild.view.js';

const role: RoleData = {
  id: '5',
  name: '@everyone',
  permissions: '1024',
  position: 0,
  color: 0,
  hoist: false,
  managed: false,
  mentionable: false,
  icon: '',
  flags: 0,
};

const guild: GuildData = {
  id: '5',
  name: 'g',
  icon: '',
  ownerId: '1',
  approximateMemberCount: 3,
  approximatePresenceCount: 0,
  features: [],
  splash: '',
  banner: 'b1',
  afkChannelId: '',
  afkTimeout: 300,
  systemChannelId: '6',
  systemChannelFlags: 0,
  rulesChannelId: '',
  publicUpdatesChannelId: '',
  verificationLevel: 0,
  defaultMessageNotifications: 0,
  explicitContentFilter: 0,
  mfaLevel: 0,
  nsfwLevel: 3,
  preferredLocale: 'en-US',
  premiumProgressBarEnabled: false,
  premiumTier: 0,
  premiumSubscriptionCount: 0,
  maxMembers: 500_000,
  roles: [role],
  vanityUrlCode: '',
  emojis: [{ id: '9', name: 'wave', roleIds: ['7'], managed: true, animated: false, available: true, requireColons: true }],
};

const member: MemberData = {
  userId: '1',
  nick: '',
  roleIds: [],
  joinedAt: '2026-01-01T00:00:00.000Z',
  pending: false,
  temporary: false,
  flags: 0,
  avatar: '',
  deaf: false,
  mute: false,
};

describe('guildView', () => {
  it('when a guild is rendered, then empty ids and hashes are null, nsfw follows the level and counts only when asked', () => {
    const view = guildView(guild);
    expect(view).toMatchObject({ icon: null, banner: 'b1', afk_channel_id: null, system_channel_id: '6', description: null, nsfw: true });
    expect(view.roles).toEqual([roleView(role)]);
    expect(view.emojis).toEqual([
      { id: '9', name: 'wave', roles: ['7'], require_colons: true, managed: true, animated: false, available: true },
    ]);
    expect('approximate_member_count' in view).toBe(false);
    expect(guildView(guild, { withCounts: true })).toMatchObject({ approximate_member_count: 3, approximate_presence_count: 0 });
  });
});

describe('roleView', () => {
  it('when a role is rendered, then colors mirror its color and unset texts are null', () => {
    expect(roleView({ ...role, color: 0xff0000 })).toMatchObject({
      color: 0xff0000,
      colors: { primary_color: 0xff0000, secondary_color: null, tertiary_color: null },
      icon: null,
      unicode_emoji: null,
      description: null,
    });
  });
});

describe('memberView', () => {
  it('when the member has a user, then it is the one partial user rendering; without one, a deleted user', () => {
    const user = { id: '1', username: 'ana', discriminator: '0', publicFlags: 0n, bot: false };
    expect(memberView({ ...member, user })).toMatchObject({ user: partialUserView(user), nick: null, premium_since: null });
    expect(memberView(member).user).toMatchObject({ id: '1', username: 'deleted_user' });
    expect(memberView({ ...member, nick: 'Ana', communicationDisabledUntil: 'x' })).toMatchObject({
      nick: 'Ana',
      communication_disabled_until: 'x',
    });
  });
});

describe('guildCreateView', () => {
  it('when a GUILD_CREATE is rendered, then it is the guild with the member, channels and counts of the joining member', () => {
    const view = guildCreateView({ guild, joinedAt: member.joinedAt, large: false, members: [member], channels: [], threads: [] });
    expect(view).toMatchObject({ ...guildView(guild), joined_at: member.joinedAt, member_count: 3, large: false, unavailable: false });
    expect(view.members).toEqual([memberView(member)]);
  });
});
