-- Applications' icons, by content hash (as the platform names them), served at
-- /app-icons/{application_id}/{hash}.{ext}. An old icon stays servable after a change: clients
-- may hold its URL.
CREATE TABLE application_icons (
  application_id  bigint NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
  hash            text NOT NULL,
  content_type    text NOT NULL,
  data            bytea NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (application_id, hash)
);
