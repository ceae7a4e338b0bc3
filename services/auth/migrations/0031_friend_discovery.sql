-- Friend discovery (the user settings' `friend_discovery_flags`): whether others' contact sync may
-- find the account by its phone number (2, FIND_BY_PHONE) or its verified email (4, FIND_BY_EMAIL).
-- Nobody is findable until they say so.
ALTER TABLE users ADD COLUMN friend_discovery_flags integer NOT NULL DEFAULT 0;
