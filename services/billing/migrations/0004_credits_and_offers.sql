-- Credits and discounts a preview (apply_entitlements, user_discount_offer_id) and a purchase apply.
--
-- An entitlement to a subscription plan that is not a subscription's own (a gift of a period, an
-- entitlement the platform granted) is a credit: applied, it pays one period of its plan (an
-- ENTITLEMENT discount, type 2, on the invoice line) and is consumed by the invoice that used it.
ALTER TABLE entitlements
  ALTER COLUMN subscription_id DROP NOT NULL,
  ADD COLUMN plan_id bigint REFERENCES plans (id),
  ADD COLUMN consumed boolean NOT NULL DEFAULT false,
  ADD COLUMN consumed_invoice_id bigint;
CREATE INDEX entitlements_credits_idx ON entitlements (user_id) WHERE plan_id IS NOT NULL AND NOT consumed;

-- The platform's user discount offers (billing.mdx, User Discount Offer and Discount): an offer of
-- a discount to one user, on the plans the discount names, redeemable until it expires and once.
CREATE TABLE user_discount_offers (
  id           bigint PRIMARY KEY,
  user_id      bigint NOT NULL,
  discount_id  bigint NOT NULL,
  -- The discount's amount: a percentage off the plans' price (the platform's example offer is 30
  -- on the Nitro monthly plan, with no currency of its own).
  amount       integer NOT NULL CHECK (amount BETWEEN 1 AND 100),
  plan_ids     bigint[] NOT NULL,
  expires_at   timestamptz,
  applied_at   timestamptz,
  invoice_id   bigint,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX user_discount_offers_user_idx ON user_discount_offers (user_id);
