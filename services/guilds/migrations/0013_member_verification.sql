-- Member verification, the gate new members pass before they take part. The gate being on is the
-- guild's MEMBER_VERIFICATION_GATE_ENABLED feature; this is the form it shows, and the join
-- requests of those who joined while it was on (their membership is `pending` until approved).
CREATE TABLE member_verification_forms (
  guild_id     bigint PRIMARY KEY REFERENCES guilds (id) ON DELETE CASCADE,
  description  text,
  -- The platform's member verification form field objects, as given (validated by the HTTP schema).
  form_fields  jsonb NOT NULL DEFAULT '[]',
  version      timestamptz NOT NULL DEFAULT now()
);

-- One request per user and guild: joining again after leaving starts it over.
CREATE TABLE guild_join_requests (
  id          bigint PRIMARY KEY,
  guild_id    bigint NOT NULL REFERENCES guilds (id) ON DELETE CASCADE,
  user_id     bigint NOT NULL,
  status      text NOT NULL CHECK (status IN ('STARTED', 'SUBMITTED', 'REJECTED', 'APPROVED')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (guild_id, user_id)
);
