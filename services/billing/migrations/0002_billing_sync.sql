-- Perks other services hold for billing: a user's premium type (auth) and a guild's boost count
-- (guilds). A change marks its target here in the same transaction; the target is pushed to its
-- service right after, and the scheduler pushes whatever a crash or an unreachable service left.
CREATE TABLE perk_sync (
  kind       text NOT NULL CHECK (kind IN ('user', 'guild')),
  target_id  bigint NOT NULL,
  since      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, target_id)
);

-- Rewards claimed from a subscription's promotion: one per subscription.
CREATE TABLE entitlements (
  id               bigint PRIMARY KEY,
  user_id          bigint NOT NULL,
  sku_id           bigint NOT NULL,
  application_id   bigint NOT NULL,
  subscription_id  bigint NOT NULL UNIQUE REFERENCES subscriptions (id),
  type             smallint NOT NULL,
  starts_at        timestamptz NOT NULL,
  ends_at          timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX entitlements_user_idx ON entitlements (user_id);

-- A boost outlives its slot as history (an ended boost keeps the id of the slot it was).
ALTER TABLE guild_boosts DROP CONSTRAINT guild_boosts_slot_id_fkey;
