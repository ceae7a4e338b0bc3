import type { ContractUser } from '@kith/platform';

/** Relationship types, as the platform numbers them. */
export const RelationshipType = {
  NONE: 0,
  FRIEND: 1,
  BLOCKED: 2,
  INCOMING_REQUEST: 3,
  OUTGOING_REQUEST: 4,
  IMPLICIT: 5,
} as const;
export type RelationshipType = (typeof RelationshipType)[keyof typeof RelationshipType];

/** Bulk-remove filters, combined with AND. */
export const RemovalFilter = { SPAM: 1, IGNORED: 2 } as const;

/** The platform's cap on friends, per user. */
export const MAX_FRIENDS = 1000;

/** What one user's row says about another. */
export interface RelationshipRow {
  user_id: string;
  target_id: string;
  type: RelationshipType;
  nickname: string | null;
  is_spam_request: boolean;
  stranger_request: boolean;
  user_ignored: boolean;
  origin_application_id: string | null;
  since: Date;
}

/** Another user as auth's GetUsers answers it; `@kith/platform` renders it (partialUserView). */
export type PartialUser = ContractUser;

/** Who may send a user friend requests (the platform's `friend_source_flags`). */
export interface FriendSourceFlags {
  all: boolean;
  mutual_friends: boolean;
  mutual_guilds: boolean;
}
