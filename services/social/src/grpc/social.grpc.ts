import { ApiError, isSnowflake, type ServiceImpl } from '@kith/platform';
import type { SocialService } from '@kith/proto/social/v1/social';
import type { ContactSyncService } from '../domain/contact-sync.service.js';
import type { GameRelationshipsService } from '../domain/game-relationships.service.js';
import type { RelationshipListCache } from '../domain/relationship-list.js';
import { RelationshipType as T } from '../domain/relationship.types.js';
import type { RelationshipsService } from '../domain/relationships.service.js';
import type { SuggestionsService } from '../domain/suggestions.service.js';
import type { PgRelationshipQueries } from '../store/relationships.store.js';

const MAX_PAGE = 1000;

function ids(...values: string[]): void {
  for (const v of values)
    if (!isSnowflake(v)) throw ApiError.form({ user_id: { code: 'NUMBER_TYPE_COERCE', message: `Value "${v}" is not snowflake.` } });
}

export function socialGrpc(deps: {
  queries: PgRelationshipQueries;
  lists: RelationshipListCache;
  games: GameRelationshipsService;
  contactSync: ContactSyncService;
  suggestions: SuggestionsService;
  relationships: Pick<RelationshipsService, 'befriendByInvite'>;
}): ServiceImpl<typeof SocialService> {
  return {
    async acceptFriendInvite({ userId, inviterId }) {
      ids(userId, inviterId);
      return { alreadyFriends: !(await deps.relationships.befriendByInvite(userId, inviterId)) };
    },
    async getRelationship({ userId, otherUserId }) {
      ids(userId, otherUserId);
      const { aToB, bToA } = await deps.queries.types(userId, otherUserId);
      return { type: aToB, otherType: bToA, friends: aToB === T.FRIEND, blocked: aToB === T.BLOCKED || bToA === T.BLOCKED };
    },
    async listFriendIds({ userId, after, limit }) {
      ids(userId);
      const page = Math.min(Math.max(limit || MAX_PAGE, 1), MAX_PAGE);
      return { userIds: await deps.queries.friendIds(userId, after && isSnowflake(after) ? after : null, page) };
    },
    async getMutualFriends({ userId, otherUserId }) {
      ids(userId, otherUserId);
      return { userIds: await deps.queries.mutualFriends(userId, otherUserId) };
    },
    async listRelationships({ userId }) {
      ids(userId);
      return { relationships: (await deps.lists.get(userId)).relationships };
    },
    async recordApplicationAuthorization({ userId, applicationId }) {
      ids(userId, applicationId);
      await deps.games.recordAuthorization(userId, applicationId);
      return {};
    },
    async issueContactSyncToken({ userId, userIds }) {
      ids(userId, ...userIds);
      return { token: await deps.contactSync.issue(userId, userIds) };
    },
    async addFriendSuggestion({ userId, suggestedUserId, reasons, fromSuggestedUserContacts }) {
      ids(userId, suggestedUserId);
      await deps.suggestions.add({
        user_id: userId,
        suggested_user_id: suggestedUserId,
        reasons: reasons.map((r) => ({ type: r.type, platform: r.platform, name: r.name })),
        from_suggested_user_contacts: fromSuggestedUserContacts,
      });
      return {};
    },
  };
}
