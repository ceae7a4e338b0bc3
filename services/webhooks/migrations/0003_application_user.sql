-- APPLICATION webhooks: the application's own user (its bot), the one caller shown the token by id.
ALTER TABLE webhooks ADD COLUMN application_user_id bigint;
