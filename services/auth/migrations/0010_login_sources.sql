-- The networks each account has signed in from (an IPv4 address or an IPv6 /64), recorded with
-- every session. Logins from them are exempt from the account-wide lockout, so strangers guessing
-- at an account cannot lock its owner out of the places the owner uses.
CREATE TABLE user_login_sources (
  user_id       bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  source        text NOT NULL,
  last_seen_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, source)
);

-- Where live sessions came from counts from the start.
INSERT INTO user_login_sources (user_id, source, last_seen_at)
SELECT user_id, client_ip, max(created_at) FROM sessions
WHERE revoked_at IS NULL AND client_ip IS NOT NULL AND client_ip <> ''
GROUP BY user_id, client_ip
ON CONFLICT DO NOTHING;
