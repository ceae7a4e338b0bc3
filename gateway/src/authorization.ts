/**
 * The kinds of token the platform accepts, each in its own form of the Authorization header: a
 * user's token raw, a bot's as `Bot <token>`, an OAuth2 access token as `Bearer <token>`. A token
 * in another kind's form is refused (a user token under `Bot ` is a 401, as on the platform).
 */
export type TokenKind = 'user' | 'bot' | 'bearer';

export interface Credential {
  kind: TokenKind;
  token: string;
}

/** The scheme is matched without regard to case (RFC 9110 §11.1). */
export function credentialOf(header: string): Credential {
  const match = /^(bot|bearer)[ \t]+(.*)$/i.exec(header);
  if (!match) return { kind: 'user', token: header.trim() };
  return { kind: match[1]!.toLowerCase() === 'bot' ? 'bot' : 'bearer', token: match[2]!.trim() };
}

/**
 * Whether the token's owner may present it in this form. No OAuth2 access tokens exist yet (no
 * application can be authorised), so `Bearer` matches nothing.
 */
export function formMatches(kind: TokenKind, owner: { bot: boolean }): boolean {
  if (kind === 'bot') return owner.bot;
  if (kind === 'user') return !owner.bot;
  return false;
}
