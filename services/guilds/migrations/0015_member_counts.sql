-- A guild's member count as a few counter rows instead of a column of the guild row: every join and
-- leave updated that one row, so joins to one guild took turns on it (and held it until commit).
-- A join or leave adds +1/-1 to one of the guild's slots (picked at random); the count is the sum.
CREATE TABLE guild_member_counts (
  guild_id  bigint NOT NULL REFERENCES guilds (id) ON DELETE CASCADE,
  slot      smallint NOT NULL,
  n         integer NOT NULL,
  PRIMARY KEY (guild_id, slot)
);

INSERT INTO guild_member_counts (guild_id, slot, n) SELECT id, 0, member_count FROM guilds WHERE member_count <> 0;
ALTER TABLE guilds DROP COLUMN member_count;
