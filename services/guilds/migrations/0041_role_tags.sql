-- A managed role's owner, as the platform's role tags name it: the bot whose integration role it
-- is (`tags.bot_id`, made when a bot is authorized into the guild with permissions) or the
-- streaming integration whose subscriber role it is (`tags.integration_id`).
ALTER TABLE roles ADD COLUMN bot_id bigint, ADD COLUMN integration_id bigint;
