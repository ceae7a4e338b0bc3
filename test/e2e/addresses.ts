/**
 * The loopback address the end-to-end system trusts as a proxy (its TRUSTED_PROXIES): a request
 * from it speaks for the client its X-Forwarded-For names (see `forwardedFor` in client.ts).
 */
export const TRUSTED_PROXY = '127.0.0.3';
