/** The legacy methods the core answers itself: logging/setLevel and resources/(un)subscribe. */
import { refuse, type ServerCapabilities } from '@agentd/lifecycle';
import {
  isLogLevel,
  type JsonRpcRequest,
  type JsonRpcResponse,
  LOG_LEVELS,
  type LogLevel,
  successResponse,
} from '@agentd/rpc-frame';
import type { PushWriter, SubscriptionRegistry } from '@agentd/subscriptions';

/** What these methods need from their connection. */
export interface LegacyMethodHost {
  readonly connectionId: string;
  readonly writer: PushWriter;
  readonly registry: SubscriptionRegistry;
  readonly maxSubscriptions: number;
  /** The handler's gate, given the canonical uri; false when there is no gate. */
  canSubscribe(uri: string): Promise<boolean>;
  setLogLevel(level: LogLevel): void;
}

/** The answer when the core owns `request.method` (a throw becomes a rejection); undefined otherwise. */
export function answerLegacyOwned(
  request: JsonRpcRequest,
  capabilities: () => ServerCapabilities,
  host: LegacyMethodHost,
): Promise<JsonRpcResponse> | undefined {
  switch (request.method) {
    case 'logging/setLevel':
      return settle(() => setLevel(request, capabilities(), host));
    case 'resources/subscribe':
      return settle(() => subscribe(request, capabilities(), host));
    case 'resources/unsubscribe':
      return settle(() => {
        requireSubscriptions(request.method, capabilities());
        host.registry.drop(host.connectionId, requireUri(request));
        return successResponse(request.id, {});
      });
    default:
      return undefined;
  }
}

async function settle(answer: () => JsonRpcResponse | Promise<JsonRpcResponse>): Promise<JsonRpcResponse> {
  return answer();
}

function setLevel(
  request: JsonRpcRequest,
  caps: ServerCapabilities,
  host: LegacyMethodHost,
): JsonRpcResponse {
  if (caps.logging === undefined) {
    throw refuse.methodNotFound('logging/setLevel', 'this server does not log to clients');
  }
  const level = request.params?.level;
  if (!isLogLevel(level)) {
    throw refuse.invalidParams(`level must be one of ${LOG_LEVELS.join(', ')}`);
  }
  host.setLogLevel(level);
  return successResponse(request.id, {});
}

async function subscribe(
  request: JsonRpcRequest,
  caps: ServerCapabilities,
  host: LegacyMethodHost,
): Promise<JsonRpcResponse> {
  requireSubscriptions(request.method, caps);
  const uri = requireUri(request);
  const { registry, connectionId } = host;
  if (registry.subscriptionCount(connectionId) >= host.maxSubscriptions && !registry.has(connectionId, uri)) {
    throw refuse.subscriptionLimit(host.maxSubscriptions);
  }
  if (!(await host.canSubscribe(uri))) {
    // A refused uri is answered as resources/read answers a missing one (hidden and missing look
    // alike); a gate with a more specific reason throws its own WireError.
    throw refuse.resourceNotFound(uri, 'legacy');
  }
  registry.register(connectionId, uri, host.writer);
  return successResponse(request.id, {});
}

function requireSubscriptions(method: string, caps: ServerCapabilities): void {
  if (caps.resources?.subscribe !== true) {
    throw refuse.methodNotFound(method, 'this server offers no resource subscriptions');
  }
}

function requireUri(request: JsonRpcRequest): string {
  const uri = request.params?.uri;
  if (typeof uri !== 'string' || uri.length === 0) {
    throw refuse.invalidParams(`${request.method} requires params.uri (string)`);
  }
  return uri;
}
