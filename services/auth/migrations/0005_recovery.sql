-- Recovery and the new-location check.
-- The countries each account has logged in (or registered) from; a password login from another
-- country, on an account without MFA, must first be authorized through a mailed link.
CREATE TABLE user_login_locations (
  user_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  country     text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, country)
);

-- Every phone number an account ever had, kept by a trigger so every flow that sets users.phone
-- (registration, phone add or change) is covered without knowing about it.
CREATE TABLE user_phone_history (
  user_id        bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  phone          text NOT NULL,
  first_seen_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, phone)
);

CREATE FUNCTION record_user_phone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.phone IS NOT NULL THEN
    INSERT INTO user_phone_history (user_id, phone) VALUES (NEW.id, NEW.phone) ON CONFLICT DO NOTHING;
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER users_phone_history AFTER INSERT OR UPDATE OF phone ON users
  FOR EACH ROW EXECUTE FUNCTION record_user_phone();

INSERT INTO user_phone_history (user_id, phone) SELECT id, phone FROM users WHERE phone IS NOT NULL ON CONFLICT DO NOTHING;

-- Numbers a revert removed (possibly SIM-jacked): no flow may attach them to an account again.
CREATE TABLE phone_blacklist (
  phone       text PRIMARY KEY,
  user_id     bigint,
  created_at  timestamptz NOT NULL DEFAULT now()
);
