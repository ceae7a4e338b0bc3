-- SMS as a second factor: the account's verified phone (users.phone) receives login and elevation
-- codes once the user turns it on; it needs TOTP on as well, so disabling TOTP turns it off too.
ALTER TABLE users ADD COLUMN sms_mfa_enabled boolean NOT NULL DEFAULT false;
