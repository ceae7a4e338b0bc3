import { describe, expect, it } from 'vitest';
import { currentUserView, deletedUserView, partialUserView } from './users.js';

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

describe('currentUserView', () => {
  const me = {
    id: '1',
    username: 'ana',
    discriminator: '0',
    globalName: 'Ana',
    publicFlags: 64n,
    bot: false,
    bio: '',
    locale: 'en-US',
    theme: 'dark',
    mfaEnabled: true,
    email: 'ana@example.com',
    verified: true,
    flags: '1048640',
    premiumType: 0,
    authenticatorTypes: [2],
  };

  it('when the user reads themself, then the public part is partialUserView’s and the private fields are added, all flags included', () => {
    const view = currentUserView(me);
    const { flags: _public, ...publicPart } = partialUserView(me);
    expect(view).toMatchObject({ ...publicPart, bot: false, flags: 1048640, public_flags: 64, email: 'ana@example.com', phone: null });
    expect(view).toMatchObject({ mfa_enabled: true, authenticator_types: [2], nsfw_allowed: null, premium_type: 0, clan: null });
  });
});
