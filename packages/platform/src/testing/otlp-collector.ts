import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP JSON export carries it, with the process (service.name) that sent it. */
export interface CollectedSpan {
  service: string;
  scope: string;
  name: string;
  /** OTLP's numbering: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attributes: Record<string, string | number | boolean>;
}

export const OTLP_SPAN_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: {
      scope?: { name?: string };
      spans?: { name: string; kind: number; traceId: string; spanId: string; parentSpanId?: string; attributes?: OtlpAttribute[] }[];
    }[];
  }[];
}

const valueOf = (v: OtlpValue): string | number | boolean =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue ?? ''));
const attributesOf = (list: OtlpAttribute[] = []) => Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

function spansOf(body: OtlpExport): CollectedSpan[] {
  return (body.resourceSpans ?? []).flatMap((rs) => {
    const service = String(attributesOf(rs.resource?.attributes)['service.name'] ?? '');
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        service,
        scope: ss.scope?.name ?? '',
        name: s.name,
        kind: s.kind,
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId ?? '',
        attributes: attributesOf(s.attributes),
      })),
    );
  });
}

/** Whether a span's name or one of its attribute values contains `text`. */
const mentions = (span: CollectedSpan, text: string): boolean =>
  span.name.includes(text) || Object.values(span.attributes).some((v) => typeof v === 'string' && v.includes(text));

/** Every span of every trace in which some span mentions `text` (in its name or an attribute). */
export function tracesMentioning(spans: readonly CollectedSpan[], text: string): CollectedSpan[] {
  const traceIds = new Set(spans.filter((s) => mentions(s, text)).map((s) => s.traceId));
  return spans.filter((s) => traceIds.has(s.traceId));
}

/**
 * A loopback OTLP/HTTP receiver (JSON, as the platform's exporter sends it): point a process's
 * OTEL_EXPORTER_OTLP_ENDPOINT at `url` and read what it exported from `spans` (the latest
 * `maxSpans`; `tracesMentioning` finds a request's trace among them).
 */
export async function startOtlpCollector({ maxSpans = 200_000 } = {}) {
  const spans: CollectedSpan[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.headers['content-type']?.includes('json'))
        spans.push(...spansOf(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport));
      if (spans.length > maxSpans) spans.splice(0, spans.length - maxSpans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type OtlpCollector = Awaited<ReturnType<typeof startOtlpCollector>>;
