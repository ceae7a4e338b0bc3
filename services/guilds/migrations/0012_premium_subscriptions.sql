-- A guild's boosts, as the billing service reports them (SetPremiumSubscriptionCount), and the
-- premium tier they reach.
ALTER TABLE guilds
  ADD COLUMN premium_subscription_count integer NOT NULL DEFAULT 0 CHECK (premium_subscription_count >= 0),
  ADD COLUMN premium_tier smallint NOT NULL DEFAULT 0 CHECK (premium_tier BETWEEN 0 AND 3);
