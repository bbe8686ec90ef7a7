/**
 * OpenTelemetry for every request, by the semantic conventions for MCP: one SERVER span per
 * request (`{mcp.method.name} {target}`), the `mcp.server.operation.duration` histogram, and a
 * CLIENT span per server-to-client request. Only `@opentelemetry/api` is used: with no SDK
 * registered the tracer is the api's no-op and a request costs one non-recording span, nothing else.
 */
import { MetaKey } from '@agentd/lifecycle';
import { isJsonObject, type JsonObject, type JsonRpcRequest, type JsonRpcResponse } from '@agentd/rpc-frame';
import type { Attributes, Histogram, MeterProvider, Span, TextMapGetter, Tracer } from '@opentelemetry/api';
import type { CoreConnection } from './core-types.js';
import type { Peer } from './handler.js';
import { type OpenTelemetryApi, openTelemetry } from './open-telemetry.js';

const SCOPE = '@agentd/server';

/** The conventions' ExplicitBucketBoundaries for `mcp.*.operation.duration` (seconds). */
export const MCP_DURATION_BUCKETS: readonly number[] = [
  0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
];

/** W3C trace context a transport read from its own envelope (HTTP headers). */
export interface TraceCarrier {
  readonly traceparent?: string;
  readonly tracestate?: string;
  readonly baggage?: string;
}

interface Instruments {
  readonly api: OpenTelemetryApi;
  // A ProxyTracer: it follows whatever provider the application registers, before or after.
  readonly tracer: Tracer;
  readonly noopHistogram: Histogram;
}

let instruments: Instruments | undefined;

function instrumentsOf(api: OpenTelemetryApi): Instruments {
  if (instruments?.api !== api) {
    instruments = {
      api,
      tracer: api.trace.getTracer(SCOPE),
      noopHistogram: api.createNoopMeter().createHistogram('noop'),
    };
  }
  return instruments;
}

const RESOURCE_METHODS = new Set(['resources/read', 'resources/subscribe', 'resources/unsubscribe']);

const carrierGetter: TextMapGetter<Readonly<Record<string, unknown>>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

// The metrics api has no proxy: the meter is looked up per request and rebuilt when the
// registered provider changes. The no-op histogram is a singleton, so "no SDK" is one comparison.
let meterProvider: MeterProvider | undefined;
let histogram: Histogram | undefined;

function durationHistogram(api: OpenTelemetryApi): Histogram | undefined {
  const { noopHistogram } = instrumentsOf(api);
  const provider = api.metrics.getMeterProvider();
  if (provider !== meterProvider) {
    meterProvider = provider;
    histogram = provider.getMeter(SCOPE).createHistogram('mcp.server.operation.duration', {
      unit: 's',
      description:
        'MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.',
      advice: { explicitBucketBoundaries: [...MCP_DURATION_BUCKETS] },
    });
  }
  return histogram === noopHistogram ? undefined : histogram;
}

/**
 * Runs one request (`run` never rejects) inside its SERVER span. The parent is the W3C context in
 * `params._meta`, else the transport's `carrier` (HTTP headers), else the ambient context; when
 * `_meta` or the carrier decided, the ambient span (an HTTP server span, say) becomes a link.
 */
export function traceRequest(
  connection: CoreConnection,
  request: JsonRpcRequest,
  carrier: TraceCarrier | undefined,
  run: () => Promise<JsonRpcResponse | undefined>,
): Promise<JsonRpcResponse | undefined> {
  // Nothing registered with OpenTelemetry: no span, no context, nothing to propagate.
  const api = openTelemetry();
  if (api === undefined) return run();
  const { context, trace, propagation, isSpanContextValid, SpanKind, SpanStatusCode } = api;
  const { tracer } = instrumentsOf(api);
  const ambient = context.active();
  const meta = request.params?._meta;
  const source = isJsonObject(meta) && typeof meta.traceparent === 'string' ? meta : carrier;
  const parent =
    source?.traceparent !== undefined ? propagation.extract(ambient, source, carrierGetter) : ambient;
  const target = targetOf(request);
  const name = target === undefined ? request.method : `${request.method} ${target}`;
  const ambientSpan = parent !== ambient ? trace.getSpan(ambient) : undefined;
  const span =
    ambientSpan !== undefined && isSpanContextValid(ambientSpan.spanContext())
      ? tracer.startSpan(
          name,
          { kind: SpanKind.SERVER, links: [{ context: ambientSpan.spanContext() }] },
          parent,
        )
      : tracer.startSpan(name, { kind: SpanKind.SERVER }, parent);
  const recording = span.isRecording();
  const duration = durationHistogram(api);
  if (!recording && duration === undefined) {
    // No SDK (or sampled out): keep the context only when it carries a real trace downstream.
    if (!isSpanContextValid(span.spanContext())) return run();
    return context.with(trace.setSpan(parent, span), run);
  }
  const started = performance.now();
  const base = commonAttributes(connection.peer, request, target);
  if (recording) {
    span.setAttributes(base);
    const id = request.id;
    if (id !== null) span.setAttribute('jsonrpc.request.id', String(id));
    if (RESOURCE_METHODS.has(request.method)) {
      const uri = request.params?.uri;
      if (typeof uri === 'string') span.setAttribute('mcp.resource.uri', uri);
    }
    addresses(span, connection.peer);
  }
  return context.with(trace.setSpan(parent, span), run).then((response) => {
    const outcome = outcomeOf(request, response);
    const version = protocolVersionOf(connection, request, response);
    if (version !== undefined) base['mcp.protocol.version'] = version;
    if (outcome.errorType !== undefined) base['error.type'] = outcome.errorType;
    if (outcome.statusCode !== undefined) base['rpc.response.status_code'] = outcome.statusCode;
    if (recording) {
      if (version !== undefined) span.setAttribute('mcp.protocol.version', version);
      const session = connection.session;
      if (session !== undefined) span.setAttribute('mcp.session.id', sessionIdOf(connection.peer));
      if (outcome.errorType !== undefined) {
        span.setAttribute('error.type', outcome.errorType);
        if (outcome.statusCode !== undefined)
          span.setAttribute('rpc.response.status_code', outcome.statusCode);
        span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.message ?? outcome.errorType });
      }
      span.end();
    }
    duration?.record((performance.now() - started) / 1000, base);
    return response;
  });
}

/**
 * A server-to-client request (`sampling/createMessage`, `elicitation/create`, `roots/list`) as a
 * CLIENT span under the current request's span; its context travels in the request's `_meta`.
 */
export function traceClientRequest(
  method: string,
  params: JsonObject,
  send: (params: JsonObject) => Promise<JsonObject>,
): Promise<JsonObject> {
  const api = openTelemetry();
  if (api === undefined) return send(params);
  const { context, trace, propagation, isSpanContextValid, SpanKind, SpanStatusCode } = api;
  const active = context.active();
  const span = instrumentsOf(api).tracer.startSpan(method, { kind: SpanKind.CLIENT }, active);
  if (!span.isRecording() && !isSpanContextValid(span.spanContext())) return send(params);
  const spanContext = trace.setSpan(active, span);
  const meta: Record<string, unknown> = isJsonObject(params._meta) ? { ...params._meta } : {};
  propagation.inject(spanContext, meta);
  span.setAttribute('mcp.method.name', method);
  return context
    .with(spanContext, () => send({ ...params, _meta: meta as JsonObject }))
    .then(
      (result) => {
        span.end();
        return result;
      },
      (thrown: unknown) => {
        const code = (thrown as { code?: unknown } | null)?.code;
        span.setAttribute('error.type', typeof code === 'number' ? String(code) : errorName(thrown));
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message: thrown instanceof Error ? thrown.message : String(thrown),
        });
        span.end();
        throw thrown;
      },
    );
}

/** The low-cardinality target of the span name: a tool or prompt name (never a resource uri). */
function targetOf(request: JsonRpcRequest): string | undefined {
  if (request.method !== 'tools/call' && request.method !== 'prompts/get') return undefined;
  const name = request.params?.name;
  return typeof name === 'string' ? name : undefined;
}

/** Attributes shared by the span and the duration metric. */
function commonAttributes(peer: Peer, request: JsonRpcRequest, target: string | undefined): Attributes {
  const attributes: Attributes = { 'mcp.method.name': request.method };
  if (target !== undefined) {
    if (request.method === 'tools/call') {
      attributes['gen_ai.tool.name'] = target;
      attributes['gen_ai.operation.name'] = 'execute_tool';
    } else attributes['gen_ai.prompt.name'] = target;
  }
  const transport = NETWORK_TRANSPORT[peer.transport] ?? peer.transport;
  attributes['network.transport'] = transport;
  if (peer.transport === 'http') attributes['network.protocol.name'] = 'http';
  return attributes;
}

/** stdio is a pipe and HTTP rides TCP (the conventions' values); unix and vsock keep their names. */
const NETWORK_TRANSPORT: Readonly<Record<string, string>> = { stdio: 'pipe', http: 'tcp', unix: 'unix' };

/** Peer facts the transports contribute: the HTTP remote address, the unix socket path. */
function addresses(span: Span, peer: Peer): void {
  const { remoteAddress, path, cid, port } = peer.attributes;
  if (typeof remoteAddress === 'string') span.setAttribute('client.address', remoteAddress);
  if (typeof path === 'string') span.setAttribute('server.address', path);
  if (typeof cid === 'number') span.setAttribute('client.address', `vsock:${cid}`);
  if (typeof port === 'number' && peer.transport === 'vsock') span.setAttribute('server.port', port);
}

interface Outcome {
  readonly errorType: string | undefined;
  readonly statusCode: string | undefined;
  readonly message: string | undefined;
}

const OK: Outcome = { errorType: undefined, statusCode: undefined, message: undefined };
const CANCELLED: Outcome = { errorType: 'cancelled', statusCode: undefined, message: 'cancelled' };

function outcomeOf(request: JsonRpcRequest, response: JsonRpcResponse | undefined): Outcome {
  if (response === undefined) return CANCELLED;
  if ('error' in response) {
    const code = String(response.error.code);
    return { errorType: code, statusCode: code, message: response.error.message };
  }
  if (request.method === 'tools/call' && response.result.isError === true) {
    return { errorType: 'tool_error', statusCode: undefined, message: 'tool_error' };
  }
  return OK;
}

function protocolVersionOf(
  connection: CoreConnection,
  request: JsonRpcRequest,
  response: JsonRpcResponse | undefined,
): string | undefined {
  const meta = request.params?._meta;
  const declared = isJsonObject(meta) ? meta[MetaKey.protocolVersion] : undefined;
  if (typeof declared === 'string') return declared;
  const session = connection.session;
  if (session !== undefined) return session.protocolVersion;
  const negotiated =
    response !== undefined && 'result' in response ? response.result.protocolVersion : undefined;
  return typeof negotiated === 'string' ? negotiated : undefined;
}

/** A legacy session's id: the transport's own (HTTP `Mcp-Session-Id`), else the connection's. */
function sessionIdOf(peer: Peer): string {
  const sessionId = peer.attributes.sessionId;
  return typeof sessionId === 'string' ? sessionId : peer.connectionId;
}

function errorName(thrown: unknown): string {
  return thrown instanceof Error && thrown.name !== 'Error' ? thrown.name : '_OTHER';
}

/** `fn` bound to the current context (itself when nothing is registered with OpenTelemetry). */
export function bindActive<T extends (...args: never[]) => unknown>(fn: T): T {
  const context = openTelemetry()?.context;
  return context === undefined ? fn : context.bind(context.active(), fn);
}
