import { trace } from '@opentelemetry/api';
import { pino, type Logger, type LoggerOptions } from 'pino';
import { requestContext } from './context.js';

export type { Logger } from 'pino';

/** Secrets never reach a log line, wherever they sit in the logged object. */
const SECRET_KEYS = ['authorization', 'password', 'new_password', 'token', 'code', 'ticket', 'cookie', 'secret'];
const redactPaths = SECRET_KEYS.flatMap((k) => [k, `*.${k}`, `*.*.${k}`, `headers["${k}"]`, `req.headers["${k}"]`]);

export function createLogger(name: string, level: LoggerOptions['level'] = 'info', destination?: pino.DestinationStream): Logger {
  const options: LoggerOptions = {
    name,
    level,
    base: { service: name },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: redactPaths, censor: '[redacted]' },
    formatters: { level: (label) => ({ level: label }) },
    // An error's own `code` (ECONNREFUSED, 23505) is kept under another name: `code` is redacted.
    serializers: { err: (err: unknown) => serializeError(err) },
    mixin() {
      const ctx = requestContext.getStore();
      const spanContext = trace.getActiveSpan()?.spanContext();
      const traceId = spanContext?.traceId ?? ctx?.traceId;
      return { ...(ctx ? { request_id: ctx.requestId } : {}), ...(traceId ? { trace_id: traceId } : {}) };
    },
  };
  // Synchronous writes: measured cheaper here than pino's async mode, whose every write is a
  // thread-pool round trip (auth at info: 783 vs 924 µs of CPU per request).
  return pino(options, destination ?? pino.destination({ dest: 1, sync: true }));
}

/** Paths that carry a secret (`/webhooks/{id}/{token}`) are logged without it. */
export function redactPath(path: string): string {
  return path.replace(/(\/webhooks\/\d+\/)[^/]+/, '$1[redacted]');
}

function serializeError(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const { code, ...rest } = pino.stdSerializers.err(err) as { code?: unknown } & Record<string, unknown>;
  return code === undefined ? rest : { ...rest, error_code: code };
}
