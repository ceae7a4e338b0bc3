/**
 * Loaded with `node --import @kith/platform/telemetry` before any application module, so the
 * instrumentations can patch express, grpc-js, pg, ioredis and undici as they are imported.
 * Tracing is on only when an OTLP endpoint is configured; otherwise nothing is loaded at all.
 */
import { register } from 'node:module';

const endpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT ?? process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;

if (endpoint && process.env.OTEL_SDK_DISABLED !== 'true') {
  const { createAddHookMessageChannel } = await import('import-in-the-middle');
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
  const { startTelemetry } = await import('./sdk.js');
  startTelemetry(process.env.OTEL_SERVICE_NAME ?? process.env.KITH_PROCESS_NAME ?? 'kith');
  await waitForAllMessagesAcknowledged();
}
