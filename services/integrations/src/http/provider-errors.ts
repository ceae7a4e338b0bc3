import type { ErrorRequestHandler, Express } from 'express';
import { UpstreamError } from '@kith/platform';
import { ProviderError } from '../domain/provider.error.js';

/**
 * A provider that failed is the upstream's failure, never ours: a 504 when it did not answer in
 * time, a 502 otherwise, with the platform's bare body. Registered after this service's routes.
 */
export function providerErrors(app: Express): void {
  const handler: ErrorRequestHandler = (err, _req, _res, next) => {
    if (!(err instanceof ProviderError)) return next(err);
    next(new UpstreamError(err.kind === 'timeout' ? 504 : 502, err.message));
  };
  app.use(handler);
}
