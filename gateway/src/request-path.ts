/**
 * Characters a path segment may carry as they are (RFC 3986 `pchar`, less `%`): a percent-encoded
 * one means the same as the character itself, so decoding it changes nothing a route can see.
 */
const PLAIN = /^[A-Za-z0-9\-._~!$&'()*+,;=:@]$/;

/**
 * The request path as the edge routes it and the services receive it: every percent-encoded
 * character that may stand as it is decoded, once (`/users/%40me` → `/users/@me`, as real clients
 * send an explicit `@me`). What would change the path's structure or be decoded again downstream
 * stays encoded: `%2F`, `%3F`, `%23`, `%25`, and anything outside ASCII (which express decodes in
 * route parameters). A path with a `.` or `..` segment, however spelled, is no API path: undefined.
 */
export function decodePath(raw: string): string | undefined {
  const path = raw.includes('%')
    ? raw.replace(/%([0-9A-Fa-f]{2})/g, (escape, hex: string) => {
        const char = String.fromCharCode(parseInt(hex, 16));
        return PLAIN.test(char) ? char : escape.toUpperCase();
      })
    : raw;
  return /\/\.\.?(\/|$)/.test(path) ? undefined : path;
}
