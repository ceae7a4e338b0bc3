-- Who may send the user friend requests (the platform's friend_source_flags); social reads it over gRPC.
ALTER TABLE users ADD COLUMN friend_source_flags jsonb NOT NULL DEFAULT '{"all": true, "mutual_friends": true, "mutual_guilds": true}';
