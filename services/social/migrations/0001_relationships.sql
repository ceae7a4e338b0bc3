-- Each side of a pair has its own row: (user_id, target_id) is what user_id sees of target_id.
CREATE TABLE relationships (
  user_id                bigint NOT NULL,
  target_id              bigint NOT NULL,
  -- 0 NONE (only an ignore), 1 FRIEND, 2 BLOCKED, 3 INCOMING_REQUEST, 4 OUTGOING_REQUEST, 5 IMPLICIT
  type                   smallint NOT NULL CHECK (type BETWEEN 0 AND 5),
  nickname               text,
  is_spam_request        boolean NOT NULL DEFAULT false,
  stranger_request       boolean NOT NULL DEFAULT false,
  user_ignored           boolean NOT NULL DEFAULT false,
  origin_application_id  bigint,
  since                  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, target_id),
  CHECK (user_id <> target_id)
);
CREATE INDEX relationships_user_type_idx ON relationships (user_id, type);

-- In-game relationships, per application.
CREATE TABLE game_relationships (
  user_id         bigint NOT NULL,
  target_id       bigint NOT NULL,
  application_id  bigint NOT NULL,
  type            smallint NOT NULL CHECK (type IN (1, 3, 4)),
  dm_access_type  integer NOT NULL DEFAULT 0,
  since           timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, target_id, application_id),
  CHECK (user_id <> target_id)
);

-- Which applications a user has authorized, as other services record it over gRPC.
CREATE TABLE application_authorizations (
  user_id         bigint NOT NULL,
  application_id  bigint NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, application_id)
);

CREATE TABLE friend_suggestions (
  user_id                       bigint NOT NULL,
  suggested_user_id             bigint NOT NULL,
  reasons                       jsonb NOT NULL DEFAULT '[]',
  from_suggested_user_contacts  boolean NOT NULL DEFAULT false,
  created_at                    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, suggested_user_id),
  CHECK (user_id <> suggested_user_id)
);

-- Contact-sync bulk-add tokens: single use, bound to the user and the ids they cover.
CREATE TABLE contact_sync_tokens (
  token_hash  bytea PRIMARY KEY,
  user_id     bigint NOT NULL,
  user_ids    bigint[] NOT NULL,
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz
);
