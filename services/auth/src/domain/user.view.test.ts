import { describe, expect, it } from 'vitest';
import { ageOn, partialUser, privateUser } from './user.view.js';
import { userRow } from '../../test/fakes/users.fake.js';
import type { UserRow } from './ports.js';

const at = (iso: string) => new Date(`${iso}T12:00:00Z`);

describe('ageOn', () => {
  it('when the birthday is tomorrow, then the age is one less than the difference in years', () => {
    expect(ageOn('2000-06-15', at('2018-06-14'))).toBe(17);
  });

  it('when it is the birthday, then the new age counts', () => {
    expect(ageOn('2000-06-15', at('2018-06-15'))).toBe(18);
  });

  it('when the birthday month is still ahead, then the year does not count yet', () => {
    expect(ageOn('2000-12-01', at('2018-11-30'))).toBe(17);
    expect(ageOn('2000-01-31', at('2018-02-01'))).toBe(18);
  });

  it('when born on 29 February, then the year counts from 1 March in a common year and on 29 February in a leap year', () => {
    expect(ageOn('2000-02-29', at('2018-02-28'))).toBe(17);
    expect(ageOn('2000-02-29', at('2018-03-01'))).toBe(18);
    expect(ageOn('2000-02-29', at('2020-02-29'))).toBe(20);
  });

  it('when the year turns, then 31 December and 1 January fall on either side', () => {
    expect(ageOn('2000-01-01', new Date('2017-12-31T23:59:59Z'))).toBe(17);
    expect(ageOn('2000-01-01', new Date('2018-01-01T00:00:00Z'))).toBe(18);
  });

  it('when the date of birth is today or later, then the age is zero or negative', () => {
    expect(ageOn('2018-06-15', at('2018-06-15'))).toBe(0);
    expect(ageOn('2019-06-15', at('2018-06-15'))).toBe(-1);
  });
});

const row = (overrides: Partial<UserRow> = {}): UserRow =>
  userRow({
    id: '175928847299117063',
    global_name: 'Alice',
    password_hash: '$argon2id$secret',
    date_of_birth: null,
    public_flags: '64',
    verified: false,
    ...overrides,
  });

describe('partialUser and privateUser', () => {
  it('when a user is shown publicly, then no private field and no credential appears', () => {
    const view = partialUser(row());
    // The platform's one rendering of a user: `flags` of another user are their public flags.
    expect(view).toEqual({
      id: '175928847299117063',
      username: 'alice',
      discriminator: '0',
      global_name: 'Alice',
      avatar: null,
      avatar_decoration_data: null,
      collectibles: null,
      primary_guild: null,
      public_flags: 64,
      flags: 64,
      banner: null,
      accent_color: null,
    });
  });

  it('when the user reads themself, then email and flags appear but never the password hash', () => {
    const view = privateUser(row({ flags: '4' }));
    expect(view).toMatchObject({ email: 'alice@example.com', flags: 4, public_flags: 64, bot: false, locale: 'en-US', verified: false });
    expect(JSON.stringify(view)).not.toContain('argon2');
  });

  it('when the date of birth is unknown, then nsfw_allowed is null; when adult, true; when a minor, false', () => {
    expect(privateUser(row()).nsfw_allowed).toBeNull();
    expect(privateUser(row({ date_of_birth: '1990-01-01' })).nsfw_allowed).toBe(true);
    const minor = new Date();
    minor.setUTCFullYear(minor.getUTCFullYear() - 14);
    expect(privateUser(row({ date_of_birth: minor.toISOString().slice(0, 10) })).nsfw_allowed).toBe(false);
  });
});
