-- Contact sync: a user's contact-sync connection and who their last sync found. The contacts
-- themselves (phone numbers, emails) are never kept: auth matches them and social keeps only the
-- ids of the users found, which is what suggestions, reverse suggestions and
-- `from_suggested_user_contacts` need.
CREATE TABLE contact_syncs (
  user_id                 bigint PRIMARY KEY,
  name                    text NOT NULL,
  friend_sync             boolean NOT NULL DEFAULT false,
  -- 1 MUTUAL_CONTACT_INFO_ONLY, 2 ANYONE_WITH_CONTACT_INFO; null until the first sync says.
  allowed_in_suggestions  smallint,
  created_at              timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE contact_matches (
  user_id          bigint NOT NULL,
  matched_user_id  bigint NOT NULL,
  PRIMARY KEY (user_id, matched_user_id),
  CHECK (user_id <> matched_user_id)
);
-- Reverse lookups: who has this user in their contacts.
CREATE INDEX contact_matches_matched_idx ON contact_matches (matched_user_id);
