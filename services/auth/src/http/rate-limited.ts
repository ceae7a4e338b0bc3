import type { ErrorRequestHandler } from 'express';
import { RateLimitedError } from '../domain/registration/rate-limit.js';

/** The platform's 429: its body, `Retry-After` and the X-RateLimit-* headers of the bucket. */
export const rateLimited: ErrorRequestHandler = (err: unknown, _req, res, next) => {
  if (!(err instanceof RateLimitedError)) return next(err);
  const seconds = err.retryAfterMs / 1000;
  res.set({
    'Retry-After': String(Math.ceil(seconds)),
    'X-RateLimit-Limit': String(err.rule.limit),
    'X-RateLimit-Remaining': '0',
    'X-RateLimit-Reset': ((Date.now() + err.retryAfterMs) / 1000).toFixed(3),
    'X-RateLimit-Reset-After': seconds.toFixed(3),
    'X-RateLimit-Bucket': err.bucket,
    'X-RateLimit-Scope': 'user',
  });
  res.status(429).json({ message: 'You are being rate limited.', retry_after: Number(seconds.toFixed(3)), global: false });
};
