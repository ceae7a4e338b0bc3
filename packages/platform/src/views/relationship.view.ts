import type { Relationship } from '@kith/proto/social/v1/social';
import { userView } from '../users.js';
import { orNull, type Plain } from './plain.js';

export type RelationshipData = Plain<Relationship>;

/** The platform's relationship object (GET /users/@me/relationships, READY), from social's contract message. */
export function relationshipView(r: RelationshipData) {
  return {
    id: r.id,
    type: r.type,
    user: userView(r.id, r.user),
    nickname: r.nickname ?? null,
    is_spam_request: r.isSpamRequest,
    stranger_request: r.strangerRequest,
    user_ignored: r.userIgnored,
    origin_application_id: orNull(r.originApplicationId),
    since: r.since,
  };
}
