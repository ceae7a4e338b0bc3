import { ApiError } from '@kith/platform';
import type { ApplicationRecord } from '../integrations/model.js';

/**
 * The response types an authorization may ask for: the authorization code grant only (no access
 * token is ever put in a browser's URL here, so the implicit grant's `token` is refused).
 */
const RESPONSE_TYPES: ReadonlySet<string> = new Set(['code']);

/** A 50035 form error on one field. */
export const formError = (field: string, code: string, message: string) => ApiError.form({ [field]: { code, message } });

/** 50035 on `response_type` unless it is one the platform's authorization accepts here. */
export function checkResponseType(responseType: string | undefined): void {
  if (responseType !== undefined && !RESPONSE_TYPES.has(responseType))
    throw formError('response_type', 'BASE_TYPE_CHOICES', "Value must be one of ('code',).");
}

/**
 * Where the browser goes after the authorization: a redirect URI must be one the application
 * registered, exactly; without one, a response type sends it to the first registered (none
 * registered: nowhere it may go). Neither asked: no redirect (the bot flow).
 */
export function registeredRedirect(
  app: ApplicationRecord,
  redirectUri: string | undefined,
  responseType: string | undefined,
): string | undefined {
  if (redirectUri !== undefined) {
    if (!app.redirect_uris.includes(redirectUri))
      throw formError('redirect_uri', 'INVALID_OAUTH_REDIRECT_URI', 'Invalid "redirect_uri" in request.');
    return redirectUri;
  }
  if (responseType === undefined) return undefined;
  const first = app.redirect_uris[0];
  if (first === undefined) throw formError('redirect_uri', 'INVALID_OAUTH_REDIRECT_URI', 'Invalid "redirect_uri" in request.');
  return first;
}
