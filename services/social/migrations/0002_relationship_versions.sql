-- A per-user stamp of the relationship list: every replica caches a user's rendered list and checks
-- it against this one cheap row before answering from the cache.
--
-- A trigger keeps it, not the application: whatever writes `relationships` (a pair change, a bulk
-- removal, a block, a nickname, a script seeding rows) changes the owner's stamp in the SAME
-- transaction, so a reader that can see the new rows also sees the new stamp, and never the old
-- list. Stamps come from one sequence, so a stamp is never reused, even for a user whose row is
-- recreated.
CREATE SEQUENCE relationship_version_seq;

CREATE TABLE relationship_versions (
  user_id  bigint PRIMARY KEY,
  version  bigint NOT NULL
);

CREATE FUNCTION bump_relationship_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    INSERT INTO relationship_versions AS v (user_id, version) VALUES (OLD.user_id, nextval('relationship_version_seq'))
      ON CONFLICT (user_id) DO UPDATE SET version = EXCLUDED.version;
  END IF;
  IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR NEW.user_id <> OLD.user_id) THEN
    INSERT INTO relationship_versions AS v (user_id, version) VALUES (NEW.user_id, nextval('relationship_version_seq'))
      ON CONFLICT (user_id) DO UPDATE SET version = EXCLUDED.version;
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER relationships_bump_version
  AFTER INSERT OR UPDATE OR DELETE ON relationships
  FOR EACH ROW EXECUTE FUNCTION bump_relationship_version();
