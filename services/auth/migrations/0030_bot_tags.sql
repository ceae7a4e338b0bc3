-- Bots (applications' users) are told apart by name and discriminator, as on the platform: two
-- applications may share a name. People's usernames stay unique on their own.
DROP INDEX users_username_key;
CREATE UNIQUE INDEX users_username_key ON users (lower(username)) WHERE NOT bot;
CREATE UNIQUE INDEX users_bot_tag_key ON users (lower(username), discriminator) WHERE bot;
