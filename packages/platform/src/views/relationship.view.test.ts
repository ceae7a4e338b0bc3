import { describe, expect, it } from 'vitest';
import { partialUserView } from '../users.js';
import { relationshipView } from './relationship.view.js';

describe('relationshipView', () => {
  const base = { id: '2', type: 1, isSpamRequest: false, strangerRequest: false, userIgnored: false, originApplicationId: '', since: 's' };

  it('when the user is known, then the relationship embeds the one partial user rendering, unset texts null', () => {
    const user = { id: '2', username: 'bo', discriminator: '0', publicFlags: 0n, bot: false };
    expect(relationshipView({ ...base, user })).toEqual({
      id: '2',
      type: 1,
      user: partialUserView(user),
      nickname: null,
      is_spam_request: false,
      stranger_request: false,
      user_ignored: false,
      origin_application_id: null,
      since: 's',
    });
  });

  it('when auth no longer knows the user, then a deleted user stands in', () => {
    expect(relationshipView(base).user).toMatchObject({ id: '2', username: 'deleted_user' });
  });
});
