/**
 * A real OTLP/HTTP receiver for tests: a node:http server on loopback that accepts
 * `/v1/traces` and `/v1/metrics` in both encodings and decodes what arrives. http/json is
 * parsed as JSON; http/protobuf is decoded by the field numbers of the OTLP proto definitions
 * (opentelemetry/proto/{collector,trace,metrics,common}/v1/*.proto).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type AttributeValue = string | number | boolean;

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  readonly service: string | undefined;
  readonly encoding: 'json' | 'protobuf';
}

export interface OtlpReceiver {
  readonly endpoint: string;
  readonly spans: ReceivedSpan[];
  /** Metric names with the encoding they arrived in. */
  readonly metrics: { name: string; encoding: 'json' | 'protobuf' }[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const metrics: { name: string; encoding: 'json' | 'protobuf' }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const json = String(req.headers['content-type']).includes('json');
      try {
        if (req.url === '/v1/traces') spans.push(...(json ? jsonSpans(body) : protoSpans(body)));
        else if (req.url === '/v1/metrics') metrics.push(...(json ? jsonMetrics(body) : protoMetrics(body)));
        else {
          res.writeHead(404).end();
          return;
        }
      } catch (error) {
        res.writeHead(400).end(String(error));
        return;
      }
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      res.end(json ? '{}' : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    metrics,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

// ---- http/json ----

interface JsonKeyValue {
  key: string;
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
}

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const { key, value } of list ?? []) {
    const v = value.stringValue ?? value.boolValue ?? value.doubleValue ?? value.intValue;
    if (v !== undefined) out[key] = typeof v === 'string' && value.intValue !== undefined ? Number(v) : v;
  }
  return out;
}

function jsonSpans(body: Buffer): ReceivedSpan[] {
  const request = JSON.parse(body.toString('utf8')) as {
    resourceSpans: {
      resource?: { attributes?: JsonKeyValue[] };
      scopeSpans: {
        spans: {
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          name: string;
          kind: number;
          attributes?: JsonKeyValue[];
        }[];
      }[];
    }[];
  };
  return request.resourceSpans.flatMap((resource) => {
    const service = jsonAttributes(resource.resource?.attributes)['service.name'];
    return resource.scopeSpans.flatMap((scope) =>
      scope.spans.map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        kind: span.kind,
        attributes: jsonAttributes(span.attributes),
        service: typeof service === 'string' ? service : undefined,
        encoding: 'json' as const,
      })),
    );
  });
}

function jsonMetrics(body: Buffer): { name: string; encoding: 'json' }[] {
  const request = JSON.parse(body.toString('utf8')) as {
    resourceMetrics: { scopeMetrics: { metrics: { name: string }[] }[] }[];
  };
  return request.resourceMetrics.flatMap((resource) =>
    resource.scopeMetrics.flatMap((scope) =>
      scope.metrics.map((m) => ({ name: m.name, encoding: 'json' as const })),
    ),
  );
}

// ---- http/protobuf: the wire format, read by the proto's field numbers ----

type Field = bigint | Buffer;

/** One message: field number → its values in order (varints as bigint, the rest as bytes). */
function fields(buffer: Buffer): Map<number, Field[]> {
  const out = new Map<number, Field[]>();
  let offset = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = buffer[offset++] as number;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (offset < buffer.length) {
    const tag = Number(varint());
    const field = tag >>> 3;
    let value: Field;
    switch (tag & 7) {
      case 0:
        value = varint();
        break;
      case 1:
        value = buffer.subarray(offset, offset + 8);
        offset += 8;
        break;
      case 2: {
        const length = Number(varint());
        value = buffer.subarray(offset, offset + length);
        offset += length;
        break;
      }
      case 5:
        value = buffer.subarray(offset, offset + 4);
        offset += 4;
        break;
      default:
        throw new Error(`unsupported wire type ${tag & 7}`);
    }
    const list = out.get(field) ?? [];
    list.push(value);
    out.set(field, list);
  }
  return out;
}

const bytesOf = (message: Map<number, Field[]>, field: number): Buffer[] =>
  (message.get(field) ?? []).filter((value): value is Buffer => Buffer.isBuffer(value));
const firstBytes = (message: Map<number, Field[]>, field: number): Buffer | undefined =>
  bytesOf(message, field)[0];

/** common.proto KeyValue { key = 1; AnyValue value = 2 }, AnyValue { string 1, bool 2, int 3, double 4 }. */
function protoAttributes(list: Buffer[]): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const raw of list) {
    const keyValue = fields(raw);
    const key = firstBytes(keyValue, 1)?.toString('utf8') ?? '';
    const anyValue = fields(firstBytes(keyValue, 2) ?? Buffer.alloc(0));
    const text = firstBytes(anyValue, 1);
    const flag = anyValue.get(2)?.[0];
    const integer = anyValue.get(3)?.[0];
    const double = firstBytes(anyValue, 4);
    if (text !== undefined) out[key] = text.toString('utf8');
    else if (typeof flag === 'bigint') out[key] = flag === 1n;
    else if (typeof integer === 'bigint') out[key] = Number(BigInt.asIntN(64, integer));
    else if (double !== undefined) out[key] = double.readDoubleLE(0);
  }
  return out;
}

/**
 * ExportTraceServiceRequest { ResourceSpans resource_spans = 1 }; ResourceSpans { Resource
 * resource = 1; ScopeSpans scope_spans = 2 }; ScopeSpans { spans = 2 }; Span { trace_id 1,
 * span_id 2, parent_span_id 4, name 5, kind 6, attributes 9 }.
 */
function protoSpans(body: Buffer): ReceivedSpan[] {
  return bytesOf(fields(body), 1).flatMap((rawResource) => {
    const resourceSpans = fields(rawResource);
    const resource = fields(firstBytes(resourceSpans, 1) ?? Buffer.alloc(0));
    const service = protoAttributes(bytesOf(resource, 1))['service.name'];
    return bytesOf(resourceSpans, 2).flatMap((rawScope) =>
      bytesOf(fields(rawScope), 2).map((rawSpan) => {
        const span = fields(rawSpan);
        return {
          traceId: firstBytes(span, 1)?.toString('hex') ?? '',
          spanId: firstBytes(span, 2)?.toString('hex') ?? '',
          parentSpanId: firstBytes(span, 4)?.toString('hex') ?? '',
          name: firstBytes(span, 5)?.toString('utf8') ?? '',
          kind: Number(span.get(6)?.[0] ?? 0n),
          attributes: protoAttributes(bytesOf(span, 9)),
          service: typeof service === 'string' ? service : undefined,
          encoding: 'protobuf' as const,
        };
      }),
    );
  });
}

/** ExportMetricsServiceRequest { resource_metrics 1 } → ScopeMetrics 2 → Metric 2 { name 1 }. */
function protoMetrics(body: Buffer): { name: string; encoding: 'protobuf' }[] {
  return bytesOf(fields(body), 1).flatMap((rawResource) =>
    bytesOf(fields(rawResource), 2).flatMap((rawScope) =>
      bytesOf(fields(rawScope), 2).map((rawMetric) => ({
        name: firstBytes(fields(rawMetric), 1)?.toString('utf8') ?? '',
        encoding: 'protobuf' as const,
      })),
    ),
  );
}
