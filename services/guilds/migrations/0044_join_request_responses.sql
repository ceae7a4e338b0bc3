-- The answers a user gave when submitting their join request (PUT /guilds/{id}/requests/@me): the
-- form's fields with each one's `response`, as the platform's form field objects.
ALTER TABLE guild_join_requests ADD COLUMN form_responses jsonb;
