import type { PartialUser, RelationshipRow } from './relationship.types.js';

/** The platform's relationship object: what the row's owner sees of its target. */
export function relationshipView(row: RelationshipRow, user: PartialUser | undefined) {
  return {
    id: row.target_id,
    type: row.type,
    user: user ?? unknownUser(row.target_id),
    nickname: row.nickname,
    is_spam_request: row.is_spam_request,
    stranger_request: row.stranger_request,
    user_ignored: row.user_ignored,
    origin_application_id: row.origin_application_id,
    since: row.since.toISOString(),
  };
}

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

/** A user object with nothing but an id and a name set (no avatar, display name or badges). */
export function partialUser(id: string, username: string): PartialUser {
  return {
    id,
    username,
    discriminator: '0',
    global_name: null,
    avatar: null,
    avatar_decoration_data: null,
    public_flags: 0,
    primary_guild: null,
  };
}

/** A target whose account is gone still needs a user object; the platform shows a deleted user. */
function unknownUser(id: string): PartialUser {
  return partialUser(id, 'deleted_user');
}
