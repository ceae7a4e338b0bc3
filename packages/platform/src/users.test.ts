import { describe, expect, it } from 'vitest';
import { deletedUserView, partialUserView } from './users.js';

describe('partialUserView', () => {
  it('when auth sends a user, then every field of the platform user object is there, flags as the public flags', () => {
    const view = partialUserView({
      id: '1',
      username: 'ana',
      discriminator: '0',
      globalName: 'Ana',
      avatar: 'a1',
      publicFlags: 64n,
      bot: false,
    });
    expect(view).toEqual({
      id: '1',
      username: 'ana',
      discriminator: '0',
      global_name: 'Ana',
      avatar: 'a1',
      avatar_decoration_data: null,
      collectibles: null,
      primary_guild: null,
      public_flags: 64,
      flags: 64,
      banner: null,
      accent_color: null,
    });
  });

  it('when the user is a bot, then bot is true; when not, the key is absent', () => {
    expect(partialUserView({ id: '2', username: 'b', discriminator: '0', publicFlags: 0n, bot: true }).bot).toBe(true);
    expect('bot' in partialUserView({ id: '3', username: 'c', discriminator: '0', publicFlags: 0n, bot: false })).toBe(false);
  });

  it('when the account is gone, then a deleted user of the same shape stands in', () => {
    const view = deletedUserView('9');
    expect(Object.keys(view).sort()).toEqual(
      Object.keys(partialUserView({ id: '1', username: 'x', discriminator: '0', publicFlags: 0n, bot: false })).sort(),
    );
    expect(view).toMatchObject({ id: '9', username: 'deleted_user', global_name: 'Deleted User', avatar: null });
  });
});
