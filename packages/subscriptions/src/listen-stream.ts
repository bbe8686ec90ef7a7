/** A modern `subscriptions/listen` stream: a registry writer that filters and tags what it carries. */

import { listenFinalResult, MetaKey } from '@agentd/lifecycle';
import {
  isJsonObject,
  type JsonObject,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcSuccessResponse,
  notification,
  type RequestId,
} from '@agentd/rpc-frame';
import { canonicalizeUri } from './canonical-uri.js';
import type { PushWriter } from './push-writer.js';

/** The `notifications` filter of a listen request (and of its acknowledgement). */
export interface ListenFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  /** Tasks extension (2026-07-28): `notifications/tasks` for these task ids. */
  taskIds?: string[];
}

export type ListChangedKind = 'tools' | 'prompts' | 'resources';

const LIST_CHANGED: Readonly<Record<string, keyof ListenFilter>> = {
  'notifications/tools/list_changed': 'toolsListChanged',
  'notifications/prompts/list_changed': 'promptsListChanged',
  'notifications/resources/list_changed': 'resourcesListChanged',
};

export interface ListenStreamOptions {
  /** The listen request's id; tags every notification, keeping its JSON type. */
  subscriptionId: RequestId;
  /** The honoured subset of what the client asked for. */
  filter: ListenFilter;
  /** Where the stream's messages go: the connection's writer, or the POST's SSE stream. */
  target: PushWriter;
  /** Canonical form of a uri, to match `resources/updated` against `resourceSubscriptions`. Default canonicalizeUri. */
  canonicalize?: (uri: string) => string;
}

export class ListenStream implements PushWriter {
  readonly id: string;
  readonly subscriptionId: RequestId;
  readonly filter: Readonly<ListenFilter>;
  private readonly target: PushWriter;
  private readonly uris: ReadonlySet<string>;
  private readonly taskIds: ReadonlySet<string>;
  private readonly canonicalize: (uri: string) => string;
  private ended = false;

  constructor(options: ListenStreamOptions) {
    this.subscriptionId = options.subscriptionId;
    this.filter = options.filter;
    this.target = options.target;
    this.id = `${options.target.id}#listen:${JSON.stringify(options.subscriptionId)}`;
    this.canonicalize = options.canonicalize ?? canonicalizeUri;
    this.uris = new Set((options.filter.resourceSubscriptions ?? []).map(this.canonicalize));
    this.taskIds = new Set(options.filter.taskIds ?? []);
  }

  /** Whether this stream watches a task (tasks extension). */
  watchesTask(taskId: string): boolean {
    return this.taskIds.has(taskId);
  }

  get closed(): boolean {
    return this.ended || this.target.closed;
  }

  /** The kinds of list_changed this stream asked for (and was granted). */
  get listChangedKinds(): ListChangedKind[] {
    const kinds: ListChangedKind[] = [];
    if (this.filter.toolsListChanged === true) kinds.push('tools');
    if (this.filter.promptsListChanged === true) kinds.push('prompts');
    if (this.filter.resourcesListChanged === true) kinds.push('resources');
    return kinds;
  }

  /** Only the kinds the client asked for; progress and log messages never ride a listen stream. */
  accepts(message: JsonRpcMessage): boolean {
    if (!('method' in message) || 'id' in message) return false;
    if (message.method === 'notifications/resources/updated') {
      const uri = message.params?.uri;
      return typeof uri === 'string' && this.uris.has(this.canonicalize(uri));
    }
    if (message.method === 'notifications/tasks') {
      const taskId = message.params?.taskId;
      return typeof taskId === 'string' && this.taskIds.has(taskId);
    }
    const flag = LIST_CHANGED[message.method];
    return flag !== undefined && this.filter[flag] === true;
  }

  write(message: JsonRpcMessage): boolean {
    if (this.closed) return false;
    if (!this.accepts(message)) return true;
    return this.target.write(this.tag(message as JsonRpcNotification));
  }

  /** The first message of the stream: `notifications/subscriptions/acknowledged` with the honoured subset. */
  acknowledge(): boolean {
    if (this.closed) return false;
    const ack = notification('notifications/subscriptions/acknowledged', {
      notifications: { ...this.filter } as JsonObject,
    });
    return this.target.write(this.tag(ack));
  }

  /** The result that ends the stream gracefully (sent by the server on close or client cancel). */
  finalResult(): JsonRpcSuccessResponse {
    return {
      jsonrpc: '2.0',
      id: this.subscriptionId,
      result: listenFinalResult(this.subscriptionId),
    };
  }

  /** Stops the stream; the target writer stays open (it is usually the whole connection). */
  close(): void {
    this.ended = true;
  }

  private tag(message: JsonRpcNotification): JsonRpcNotification {
    const params = message.params ?? {};
    const meta = isJsonObject(params._meta) ? params._meta : {};
    return {
      ...message,
      params: { ...params, _meta: { ...meta, [MetaKey.subscriptionId]: this.subscriptionId } },
    };
  }
}
