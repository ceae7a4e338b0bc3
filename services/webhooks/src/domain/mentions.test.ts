import { describe, expect, it } from 'vitest';
import { allowedMentionsConflict, parseMentions } from './mentions.js';

describe('parseMentions', () => {
  const content = 'hi <@11> <@!12> <@&21> @everyone';

  it('when allowed_mentions is absent, then every mention counts', () => {
    expect(parseMentions(content, undefined)).toEqual({ userIds: ['11', '12'], roleIds: ['21'], everyone: true });
  });

  it('when allowed_mentions lists kinds and ids, then only those count', () => {
    expect(parseMentions(content, { parse: ['roles'], users: ['12'] })).toEqual({ userIds: ['12'], roleIds: ['21'], everyone: false });
    expect(parseMentions(content, { parse: [] })).toEqual({ userIds: [], roleIds: [], everyone: false });
  });

  it('when parse and a list name the same kind, then that is a conflict', () => {
    expect(allowedMentionsConflict({ parse: ['users'], users: ['1'] })).toBe('users');
    expect(allowedMentionsConflict({ parse: ['roles'], users: ['1'] })).toBeUndefined();
  });
});
