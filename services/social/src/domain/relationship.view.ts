import { relationshipView as render, type RelationshipData } from '@kith/platform';
import type { PartialUser, RelationshipRow } from './relationship.types.js';

/** A row as the contract carries it: what the row's owner sees of its target (undefined user: a deleted account). */
export function relationshipData(row: RelationshipRow, user: PartialUser | undefined): RelationshipData {
  return {
    id: row.target_id,
    type: row.type,
    user,
    nickname: row.nickname ?? undefined,
    isSpamRequest: row.is_spam_request,
    strangerRequest: row.stranger_request,
    userIgnored: row.user_ignored,
    originApplicationId: row.origin_application_id ?? '',
    since: row.since.toISOString(),
  };
}

/** The platform's relationship object. */
export const relationshipView = (row: RelationshipRow, user: PartialUser | undefined) => render(relationshipData(row, user));

/** The partial relationship of RELATIONSHIP_UPDATE and RELATIONSHIP_REMOVE. */
export function partialRelationship(row: RelationshipRow) {
  return {
    id: row.target_id,
    type: row.type,
    nickname: row.nickname,
    since: row.since.toISOString(),
    stranger_request: row.stranger_request,
    user_ignored: row.user_ignored,
  };
}
