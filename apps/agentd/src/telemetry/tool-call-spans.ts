/**
 * A span per tool call under the run's `invoke_agent` span (GenAI conventions: `execute_tool
 * {name}`, `gen_ai.tool.*`). It starts at the call's first sight and ends when the call is
 * completed or failed, or with the run. Names only: a call's title, input and output are the
 * starter's content (self-mcp/run-access.ts) and never leave the machine.
 */
import { ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ToolCallFacts } from './run-event-reader.js';

const tracer = trace.getTracer('@agentd/agentd');
/** An agent that never finishes its calls must not grow this without bound. */
const OPEN_MAX = 256;

export class ToolCallSpans {
  readonly #parent: Span;
  readonly #open = new Map<string, Span>();
  /** Calls ended this turn: a late update of one must not open a second span. Ids repeat across turns. */
  readonly #ended = new Set<string>();

  constructor(parent: Span) {
    this.#parent = parent;
  }

  see(call: ToolCallFacts): void {
    let span = this.#open.get(call.id);
    if (span === undefined) {
      if (this.#ended.has(call.id) || this.#open.size >= OPEN_MAX) return;
      span = tracer.startSpan(
        `execute_tool ${call.name}`,
        {
          kind: SpanKind.INTERNAL,
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': call.name,
            'gen_ai.tool.call.id': call.id,
            'gen_ai.tool.type': 'function',
            'agentd.tool.kind': call.kind,
          },
        },
        trace.setSpan(ROOT_CONTEXT, this.#parent),
      );
      this.#open.set(call.id, span);
    }
    if (call.status === 'completed' || call.status === 'failed') this.#end(call.id, span, call.status);
  }

  /** A turn ended: its call ids may come again in the next one. */
  turnEnded(): void {
    this.#ended.clear();
  }

  /** The run ended: calls still open never finished. */
  endAll(): void {
    for (const [id, span] of this.#open) this.#end(id, span, 'unfinished');
  }

  #end(id: string, span: Span, status: string): void {
    span.setAttribute('agentd.tool.status', status);
    if (status !== 'completed') {
      span.setAttribute('error.type', status === 'failed' ? 'tool_failed' : status);
      span.setStatus({ code: SpanStatusCode.ERROR, message: status });
    }
    span.end();
    this.#open.delete(id);
    this.#ended.add(id);
  }
}
