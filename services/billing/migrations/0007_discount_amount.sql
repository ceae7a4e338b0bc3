-- A discount's amount is money, not a percentage: the platform's Discount structure (billing.mdx)
-- gives `amount` "in the smallest currency unit" (its example's 30 is 30 cents off, not 30 %).
-- 0004 read it as a percentage and bounded it to 1..100.
ALTER TABLE user_discount_offers DROP CONSTRAINT user_discount_offers_amount_check;
ALTER TABLE user_discount_offers ADD CONSTRAINT user_discount_offers_amount_check CHECK (amount > 0);
COMMENT ON COLUMN user_discount_offers.amount IS
  'The discount in the smallest currency unit of the invoice it is applied to, off each line of a plan it names (never below zero).';
