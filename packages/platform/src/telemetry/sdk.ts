import { getNodeAutoInstrumentations } from '@opentelemetry/auto-instrumentations-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';

/** Starts tracing with OTLP/HTTP export (endpoint and headers from the standard OTEL_* keys). */
export function startTelemetry(serviceName: string): NodeSDK {
  const sdk = new NodeSDK({
    serviceName,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
    instrumentations: [
      getNodeAutoInstrumentations({
        '@opentelemetry/instrumentation-fs': { enabled: false },
        '@opentelemetry/instrumentation-dns': { enabled: false },
        '@opentelemetry/instrumentation-net': { enabled: false },
      }),
    ],
  });
  sdk.start();
  const shutdown = () => void sdk.shutdown().catch(() => undefined);
  process.once('beforeExit', shutdown);
  return sdk;
}
