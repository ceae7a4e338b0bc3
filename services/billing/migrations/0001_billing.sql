-- The billing service's data: the catalogue (SKUs, plans and their prices per currency), users'
-- gateway customers and payment sources, subscriptions with their items, invoices and payments,
-- purchases named by the client's load_id, and premium guild subscription (boost) slots.
-- Money is an integer of the currency's smallest unit. Ids are snowflakes.

CREATE TABLE skus (
  id              bigint PRIMARY KEY,
  name            text NOT NULL,
  slug            text NOT NULL,
  -- 5 SUBSCRIPTION_GROUP / 4 SUBSCRIPTION, as the platform types its premium SKUs.
  type            smallint NOT NULL,
  application_id  bigint NOT NULL,
  product_line    smallint,
  -- What an active subscription to it makes the user: 0 none, 1 classic, 2 full, 3 basic.
  premium_type    smallint NOT NULL DEFAULT 0,
  published       boolean NOT NULL DEFAULT true
);

CREATE TABLE plans (
  id                   bigint PRIMARY KEY,
  sku_id               bigint NOT NULL REFERENCES skus (id),
  name                 text NOT NULL,
  -- 1 MONTH, 2 YEAR, 3 DAY
  interval             smallint NOT NULL CHECK (interval BETWEEN 1 AND 3),
  interval_count       integer NOT NULL CHECK (interval_count > 0),
  -- Boost slots each unit of the plan grants.
  premium_guild_slots  integer NOT NULL DEFAULT 0,
  published            boolean NOT NULL DEFAULT true
);
CREATE INDEX plans_sku_idx ON plans (sku_id);

CREATE TABLE plan_prices (
  plan_id   bigint NOT NULL REFERENCES plans (id),
  currency  text NOT NULL,
  amount    integer NOT NULL CHECK (amount >= 0),
  -- Tax in basis points of the amount: inside it for tax-inclusive plans, added on top otherwise.
  tax_bps   integer NOT NULL DEFAULT 0 CHECK (tax_bps >= 0),
  -- Whether the tax is inside the amount (VAT) or added on top of it (sales tax).
  tax_inclusive  boolean NOT NULL DEFAULT true,
  exponent  smallint NOT NULL DEFAULT 2,
  PRIMARY KEY (plan_id, currency)
);

-- The platform's premium SKUs and plans, under their real ids: clients built against the platform
-- look them up by id.
INSERT INTO skus (id, name, slug, type, application_id, product_line, premium_type) VALUES
  (978380684370378762, 'Nitro Basic', 'nitro-basic', 5, 521842831262875670, 1, 3),
  (521846918637420545, 'Nitro Classic', 'nitro-classic', 5, 521842831262875670, 1, 1),
  (521847234246082599, 'Nitro', 'nitro', 5, 521842831262875670, 1, 2),
  (590663762298667008, 'Server Boost', 'server-boost', 5, 521842831262875670, 2, 0);

INSERT INTO plans (id, sku_id, name, interval, interval_count, premium_guild_slots) VALUES
  (978380692553465866, 978380684370378762, 'Nitro Basic Monthly', 1, 1, 0),
  (1024422698568122368, 978380684370378762, 'Nitro Basic Yearly', 2, 1, 0),
  (511651871736201216, 521846918637420545, 'Nitro Classic Monthly', 1, 1, 0),
  (511651876987469824, 521846918637420545, 'Nitro Classic Yearly', 2, 1, 0),
  (511651880837840896, 521847234246082599, 'Nitro Monthly', 1, 1, 2),
  (511651885459963904, 521847234246082599, 'Nitro Yearly', 2, 1, 2),
  (590665532894740483, 590663762298667008, 'Server Boost Monthly', 1, 1, 1),
  (590665538238152709, 590663762298667008, 'Server Boost Yearly', 2, 1, 1);

-- US prices carry no tax line; EUR prices include 20% VAT; CAD adds 13% on top (tax-exclusive).
INSERT INTO plan_prices (plan_id, currency, amount, tax_bps, tax_inclusive) VALUES
  (978380692553465866, 'usd', 299, 0, true), (978380692553465866, 'eur', 299, 2000, true),
  (1024422698568122368, 'usd', 2999, 0, true), (1024422698568122368, 'eur', 2999, 2000, true),
  (511651871736201216, 'usd', 499, 0, true), (511651871736201216, 'eur', 499, 2000, true),
  (511651876987469824, 'usd', 4999, 0, true), (511651876987469824, 'eur', 4999, 2000, true),
  (511651880837840896, 'usd', 999, 0, true), (511651880837840896, 'eur', 999, 2000, true), (511651880837840896, 'cad', 1299, 1300, false),
  (511651885459963904, 'usd', 9999, 0, true), (511651885459963904, 'eur', 9999, 2000, true), (511651885459963904, 'cad', 12999, 1300, false),
  (590665532894740483, 'usd', 499, 0, true), (590665532894740483, 'eur', 499, 2000, true), (590665532894740483, 'cad', 649, 1300, false),
  (590665538238152709, 'usd', 4999, 0, true), (590665538238152709, 'eur', 4999, 2000, true), (590665538238152709, 'cad', 6499, 1300, false);

-- The user's customer at the payment gateway, made on their first payment source.
CREATE TABLE customers (
  user_id              bigint PRIMARY KEY,
  gateway_customer_id  text NOT NULL UNIQUE,
  created_at           timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE payment_sources (
  id                  bigint PRIMARY KEY,
  user_id             bigint NOT NULL,
  type                smallint NOT NULL DEFAULT 1,
  payment_gateway     smallint NOT NULL DEFAULT 1,
  gateway_source_id   text NOT NULL,
  brand               text,
  last_4              text,
  expires_month       smallint,
  expires_year        smallint,
  country             text,
  billing_address     jsonb NOT NULL,
  is_default          boolean NOT NULL DEFAULT false,
  invalid             boolean NOT NULL DEFAULT false,
  flags               integer NOT NULL DEFAULT 0,
  deleted_at          timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX payment_sources_user_idx ON payment_sources (user_id) WHERE deleted_at IS NULL;

CREATE TABLE subscriptions (
  id                    bigint PRIMARY KEY,
  user_id               bigint NOT NULL,
  type                  smallint NOT NULL DEFAULT 1,
  status                smallint NOT NULL CHECK (status IN (0, 1, 2, 3, 4, 6, 7, 8, 9)),
  currency              text NOT NULL,
  payment_gateway       smallint,
  payment_source_id     bigint,
  current_period_start  timestamptz NOT NULL,
  current_period_end    timestamptz NOT NULL,
  streak_started_at     timestamptz,
  canceled_at           timestamptz,
  trial_id              bigint,
  trial_ends_at         timestamptz,
  country_code          text,
  metadata              jsonb NOT NULL DEFAULT '{}',
  renewal_mutations     jsonb,
  -- Days a pause lasts once it begins (PAUSE_PENDING), and when a pause ends (PAUSED).
  pause_duration_days   integer,
  pause_ends_at         timestamptz,
  -- Failed renewal charges in a row, and when the scheduler next looks at the subscription.
  failed_renewals       integer NOT NULL DEFAULT 0,
  next_action_at        timestamptz,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX subscriptions_user_idx ON subscriptions (user_id, id);
CREATE INDEX subscriptions_due_idx ON subscriptions (next_action_at) WHERE next_action_at IS NOT NULL;

CREATE TABLE subscription_items (
  id               bigint PRIMARY KEY,
  subscription_id  bigint NOT NULL REFERENCES subscriptions (id),
  plan_id          bigint NOT NULL REFERENCES plans (id),
  quantity         integer NOT NULL CHECK (quantity > 0)
);
CREATE INDEX subscription_items_sub_idx ON subscription_items (subscription_id);

-- 1 OPEN, 2 PAID, 3 VOID, 4 UNCOLLECTIBLE. `items` is the invoice's lines as shown.
CREATE TABLE invoices (
  id               bigint PRIMARY KEY,
  subscription_id  bigint NOT NULL REFERENCES subscriptions (id),
  user_id          bigint NOT NULL,
  status           smallint NOT NULL,
  currency         text NOT NULL,
  subtotal         integer NOT NULL,
  tax              integer NOT NULL,
  total            integer NOT NULL,
  tax_inclusive    boolean NOT NULL,
  items            jsonb NOT NULL,
  period_start     timestamptz NOT NULL,
  period_end       timestamptz NOT NULL,
  -- What the invoice is for: the first period, a renewal of a period, a mid-period change.
  reason           text NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (subscription_id, period_start, reason)
);
CREATE INDEX invoices_sub_idx ON invoices (subscription_id, id);

-- 0 PENDING, 1 COMPLETED, 2 FAILED, 3 REVERSED, 4 REFUNDED, 5 CANCELED. `idempotency_key` is sent
-- to the gateway with the charge: a retry of the same payment can never charge twice.
CREATE TABLE payments (
  id                  bigint PRIMARY KEY,
  user_id             bigint NOT NULL,
  subscription_id     bigint REFERENCES subscriptions (id),
  invoice_id          bigint REFERENCES invoices (id),
  payment_source_id   bigint,
  amount              integer NOT NULL,
  tax                 integer NOT NULL,
  tax_inclusive       boolean NOT NULL,
  currency            text NOT NULL,
  status              smallint NOT NULL,
  description         text NOT NULL,
  sku_id              bigint,
  plan_id             bigint,
  gateway_payment_id  text,
  idempotency_key     text NOT NULL UNIQUE,
  error_code          integer,
  amount_refunded     integer NOT NULL DEFAULT 0,
  created_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX payments_user_idx ON payments (user_id, id);
CREATE INDEX payments_pending_idx ON payments (created_at) WHERE status = 0;

-- One purchase per (user, load_id): the first request claims it, every retry or concurrent copy
-- waits for it and answers what it answered. `request_hash` refuses another body under the name.
-- A claim whose holder died (lease passed) is taken over, with the same gateway idempotency key.
CREATE TABLE purchases (
  user_id          bigint NOT NULL,
  load_id          text NOT NULL,
  request_hash     text NOT NULL,
  state            text NOT NULL CHECK (state IN ('pending', 'done', 'failed')),
  subscription_id  bigint,
  payment_id       bigint NOT NULL,
  outcome          jsonb,
  lease_until      timestamptz NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, load_id)
);

CREATE TABLE premium_guild_slots (
  id                bigint PRIMARY KEY,
  user_id           bigint NOT NULL,
  subscription_id   bigint NOT NULL REFERENCES subscriptions (id),
  canceled          boolean NOT NULL DEFAULT false,
  cooldown_ends_at  timestamptz,
  created_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX premium_guild_slots_user_idx ON premium_guild_slots (user_id);
CREATE INDEX premium_guild_slots_sub_idx ON premium_guild_slots (subscription_id);

-- A slot applied to a guild (the platform's premium guild subscription). One live boost per slot.
CREATE TABLE guild_boosts (
  id          bigint PRIMARY KEY,
  slot_id     bigint NOT NULL REFERENCES premium_guild_slots (id),
  user_id     bigint NOT NULL,
  guild_id    bigint NOT NULL,
  ended       boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now(),
  ended_at    timestamptz
);
CREATE UNIQUE INDEX guild_boosts_live_slot_idx ON guild_boosts (slot_id) WHERE NOT ended;
CREATE INDEX guild_boosts_guild_idx ON guild_boosts (guild_id) WHERE NOT ended;
CREATE INDEX guild_boosts_user_idx ON guild_boosts (user_id);

-- Each application or removal of a boost by a user: the cooldown counts them in its window.
CREATE TABLE boost_changes (
  user_id  bigint NOT NULL,
  at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX boost_changes_user_idx ON boost_changes (user_id, at);
