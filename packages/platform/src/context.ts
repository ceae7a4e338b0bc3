import { AsyncLocalStorage } from 'node:async_hooks';

/** What every log line of a request carries, wherever it is written from. */
export interface RequestContext {
  requestId: string;
  traceId?: string;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();
