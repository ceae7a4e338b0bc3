import { z } from 'zod';
import { lengthString } from '@kith/platform';
import { PUSH_PROVIDERS } from '../domain/devices.service.js';
import { PASSWORD_LENGTH } from '../domain/password-rule.js';

const custom = (code: string, message: string) => ({ params: { code, message } });

/** New-style usernames: 2–32 of lowercase letters, digits, `_` and `.`, never `..`. */
export const username = lengthString(2, 32)
  .refine(
    (v) => /^[a-z0-9_.]+$/.test(v),
    custom('USERNAME_INVALID_CHARACTERS', 'Username can only use lowercase letters, numbers, underscores _ and periods .'),
  )
  .refine((v) => !v.includes('..'), custom('USERNAME_INVALID_CONSECUTIVE_PERIODS', 'Username cannot contain consecutive periods.'));

export const password = lengthString(PASSWORD_LENGTH.min, PASSWORD_LENGTH.max);

const email = z.email().max(254);

/** A calendar date, `YYYY-MM-DD`, that exists and is not in the future. */
const dateOfBirth = z.string().refine(
  (v) => {
    const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
    if (!match) return false;
    const date = new Date(`${v}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(v) && date.getTime() <= Date.now() && Number(match[1]) >= 1900;
  },
  custom('DATE_TYPE_PARSE', 'Could not parse date. Should be in the format YYYY-MM-DD.'),
);

export const registerBody = z
  .object({
    username: username.optional(),
    global_name: lengthString(1, 32).nullish(),
    email: email.optional(),
    /** From POST /phone-verifications/verify: registers a phone account, the email then optional. */
    phone_token: z.string().min(1).max(256).optional(),
    // Without email, phone_token and password the account is unclaimed: its token is its only key
    // until the owner sets an email and a password (PATCH /users/@me).
    password: password.optional(),
    date_of_birth: dateOfBirth.optional(),
    consent: z.boolean().optional(),
    promotional_email_opt_in: z.boolean().optional(),
    fingerprint: z.string().max(256).optional(),
    invite: z.string().max(64).nullish(),
    guild_template_code: z.string().max(64).nullish(),
    gift_code_sku_id: z.string().max(32).nullish(),
  })
  // `when` makes the check run even when other fields failed, so every problem is listed at once.
  .refine((body: { username?: unknown; global_name?: unknown }) => body.username !== undefined || Boolean(body.global_name), {
    path: ['username'],
    params: { code: 'BASE_TYPE_REQUIRED', message: 'This field is required' },
    when: (payload) => typeof payload.value === 'object' && payload.value !== null && !Array.isArray(payload.value),
  });

export const loginBody = z.object({
  login: z.string().min(1).max(320),
  password: z.string().min(1).max(4096),
  undelete: z.boolean().optional(),
  login_source: z.string().max(64).nullish(),
  gift_code_sku_id: z.string().max(32).nullish(),
});

export const logoutSessionsBody = z.object({
  session_id_hashes: z.array(z.string().max(128)).min(1).max(64),
});

export const logoutBody = z
  .object({
    provider: z.string().max(64).nullish(),
    token: z.string().max(4096).nullish(),
    voip_provider: z.string().max(64).nullish(),
    voip_token: z.string().max(4096).nullish(),
  })
  .optional();

const pushProvider = z.enum(PUSH_PROVIDERS);
const pushToken = z.string().min(1).max(4096);
const REQUIRED = { code: 'BASE_TYPE_REQUIRED', message: 'This field is required' };

/** Register Device: a device token, and on iOS its VoIP token (both of a pair, or neither). */
export const registerDeviceBody = z
  .object({
    provider: pushProvider,
    token: pushToken,
    voip_provider: pushProvider.nullish(),
    voip_token: pushToken.nullish(),
    bypass_server_throttling_supported: z.boolean().optional(),
    bundle_id: z.string().max(256).nullish(),
  })
  .superRefine((body, ctx) => {
    if (body.voip_provider && !body.voip_token)
      ctx.addIssue({ code: 'custom', path: ['voip_token'], params: REQUIRED, message: 'required' });
    if (body.voip_token && !body.voip_provider)
      ctx.addIssue({ code: 'custom', path: ['voip_provider'], params: REQUIRED, message: 'required' });
  });

export const unregisterDeviceBody = z.object({ provider: pushProvider, token: pushToken });
