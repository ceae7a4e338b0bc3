import { describe, expect, it } from 'vitest';
import { channelView, type ChannelData } from './channel.view.js';

/** A channel as the contract carries it, every field at its empty value. */
const channel = (over: Partial<ChannelData>): ChannelData => ({
  id: '10',
  type: 0,
  guildId: '',
  parentId: '',
  name: '',
  recipientIds: [],
  ownerId: '',
  flags: 0,
  lastMessageId: '',
  recipients: [],
  icon: '',
  nsfw: false,
  position: 0,
  permissionOverwrites: [],
  rateLimitPerUser: 0,
  rtcRegion: '',
  defaultAutoArchiveDuration: 0,
  availableTags: [],
  defaultForumLayout: 0,
  defaultThreadRateLimitPerUser: 0,
  messageCount: 0,
  memberCount: 0,
  ...over,
});

const ana = { id: '1', username: 'ana', discriminator: '0', publicFlags: 0n, bot: false };
const bo = { id: '2', username: 'bo', discriminator: '0', publicFlags: 0n, bot: false };

describe('channelView', () => {
  it('when a text channel is rendered, then ids left empty are null and the guild fields are there', () => {
    const view = channelView(
      channel({
        guildId: '5',
        name: 'general',
        position: 3,
        topic: 'hi',
        permissionOverwrites: [{ id: '5', type: 0, allow: '0', deny: '1024' }],
      }),
    );
    expect(view).toEqual({
      id: '10',
      type: 0,
      flags: 0,
      guild_id: '5',
      name: 'general',
      parent_id: null,
      nsfw: false,
      position: 3,
      permission_overwrites: [{ id: '5', type: 0, allow: '0', deny: '1024' }],
      last_message_id: null,
      rate_limit_per_user: 0,
      topic: 'hi',
    });
  });

  it('when a voice channel is rendered, then it has bitrate, user limit and region instead of a topic', () => {
    const view = channelView(channel({ type: 2, guildId: '5', name: 'Voice', bitrate: 64000, userLimit: 0 }));
    expect(view).toMatchObject({ bitrate: 64000, user_limit: 0, rtc_region: null });
    expect('topic' in view).toBe(false);
  });

  it('when a category is rendered, then it has neither a topic nor a last message', () => {
    const view = channelView(channel({ type: 4, guildId: '5', name: 'Cat' }));
    expect(Object.keys(view)).not.toContain('topic');
    expect(Object.keys(view)).not.toContain('last_message_id');
  });

  it('when a forum is rendered, then its tags and forum defaults are there; an auto-archive default only when set', () => {
    const forum = channel({
      type: 15,
      guildId: '5',
      name: 'forum',
      availableTags: [{ id: '7', name: 'help', moderated: true, emojiName: '❓' }],
      defaultAutoArchiveDuration: 1440,
    });
    expect(channelView(forum)).toMatchObject({
      available_tags: [{ id: '7', name: 'help', moderated: true, emoji_id: null, emoji_name: '❓' }],
      default_reaction_emoji: null,
      default_sort_order: null,
      default_forum_layout: 0,
      default_auto_archive_duration: 1440,
    });
    expect('default_auto_archive_duration' in channelView(channel({ guildId: '5', name: 'x' }))).toBe(false);
  });

  it('when a thread is rendered, then it carries its metadata and counts, and applied tags only in forums', () => {
    const metadata = { archived: false, autoArchiveDuration: 4320, archiveTimestamp: 't', locked: false, createTimestamp: 't' };
    const thread = channel({ type: 11, guildId: '5', parentId: '9', name: 't', ownerId: '1', threadMetadata: metadata, messageCount: 2 });
    const view = channelView(thread);
    expect(view).toMatchObject({ owner_id: '1', parent_id: '9', message_count: 2, total_message_sent: 2 });
    expect(view.thread_metadata).toEqual({
      archived: false,
      auto_archive_duration: 4320,
      archive_timestamp: 't',
      locked: false,
      create_timestamp: 't',
    });
    expect('applied_tags' in view).toBe(false);
    expect('permission_overwrites' in view).toBe(false);
    expect(channelView({ ...thread, appliedTags: { tagIds: ['7'] } }).applied_tags).toEqual(['7']);
    const privateThread = channelView({ ...thread, type: 12, threadMetadata: { ...metadata, invitable: false } });
    expect(privateThread.thread_metadata).toMatchObject({ invitable: false });
  });

  it('when a group DM is rendered for a viewer, then the viewer is left out and a recipient auth does not know is a deleted user', () => {
    const group = channel({ type: 3, recipientIds: ['1', '2', '3'], recipients: [ana, bo], ownerId: '1', name: '' });
    const view = channelView(group, '2');
    expect(view).toMatchObject({ name: null, icon: null, owner_id: '1', last_message_id: null });
    expect((view.recipients as { id: string; username: string }[]).map((u) => [u.id, u.username])).toEqual([
      ['1', 'ana'],
      ['3', 'deleted_user'],
    ]);
    expect('guild_id' in view).toBe(false);
    expect((channelView(group).recipients as unknown[]).length).toBe(3);
  });

  it('when a DM is rendered, then it has no name, icon or owner', () => {
    const view = channelView(channel({ type: 1, recipientIds: ['1', '2'], recipients: [ana, bo] }), '1');
    expect(Object.keys(view).sort()).toEqual(['flags', 'id', 'last_message_id', 'recipients', 'type']);
  });
});
