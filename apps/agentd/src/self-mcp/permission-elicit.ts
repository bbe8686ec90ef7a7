/**
 * An agent's permission request put to the MCP caller waiting on the run: a form elicitation
 * naming the tool call, whose one field picks one of the options the agent offered. A legacy
 * caller gets `elicitation/create` now; a task-augmented spawn gets it through the task's
 * `input_required`. Decline or cancel rejects; a caller that cannot answer (no elicitation
 * declared, or a connection that cannot ask) leaves the decision pending for an operator or the
 * policy's timeout.
 */
import { isJsonObject, type JsonObject } from '@agentd/rpc-frame';
import type { Supervisor } from '../supervisor/index.js';
import type { PermissionOption, PermissionRequest } from '../supervisor/run-event.js';
import type { PermissionAnswerer } from '../supervisor/types.js';
import type { OperationContext } from './operation-spec.js';

/** Characters of the agent's tool-call text shown in the form's message. */
const MESSAGE_TEXT_CHARS = 1000;
const MAX_LOCATIONS = 10;

/** The input key of a request inside a task: stable across rounds, so a retried call finds its answer. */
function permissionKey(requestId: string): string {
  return `permission_${requestId}`;
}

function clip(text: string, max = MESSAGE_TEXT_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** What a person reads before deciding: the agent wants to run this tool, on these files. */
export function permissionMessage(request: PermissionRequest, runId: string): string {
  const { toolCall } = request;
  const lines = [`Run ${runId} asks permission: ${clip(toolCall.title, 200)} (${toolCall.kind})`];
  if (toolCall.input !== undefined && toolCall.input !== '') lines.push(`Input: ${clip(toolCall.input)}`);
  const locations = toolCall.locations ?? [];
  if (locations.length > 0) {
    const shown = locations.slice(0, MAX_LOCATIONS).map((l) => clip(l, 300));
    const more = locations.length > MAX_LOCATIONS ? ` (+${locations.length - MAX_LOCATIONS} more)` : '';
    lines.push(`Files: ${shown.join(', ')}${more}`);
  }
  return lines.join('\n');
}

/** The form: one required `decision`, a single choice among the agent's options (titled). */
export function permissionSchema(options: PermissionOption[]): JsonObject {
  return {
    type: 'object',
    properties: {
      decision: {
        type: 'string',
        title: 'Decision',
        description: 'Which of the agent’s options to take.',
        oneOf: options.map((o) => ({ const: o.optionId, title: clip(o.name, 200) })),
      },
    },
    required: ['decision'],
  };
}

/** The option the caller's answer picked, or undefined when it rejected or picked none offered. */
export function chosenOption(answer: JsonObject, request: PermissionRequest): string | undefined {
  if (answer.action === 'accept') {
    const picked = isJsonObject(answer.content) ? answer.content.decision : undefined;
    if (typeof picked === 'string' && request.options.some((o) => o.optionId === picked)) return picked;
    return undefined;
  }
  // Decline and cancel are a "no": the agent's reject option, when it offers one.
  return (
    request.options.find((o) => o.kind === 'reject_once') ??
    request.options.find((o) => o.kind === 'reject_always')
  )?.optionId;
}

/**
 * The answerer for a caller waiting on a run. `inPlace` says whether `elicit` asks while the
 * handler waits (legacy era, inside a task); a 2026-07-28 call outside a task would only ask once
 * its handler returns, too late for a run in progress, so it leaves the decision to the others.
 */
export function elicitingAnswerer(
  context: OperationContext,
  runId: () => string | undefined,
  inPlace = context.era !== 'modern',
): PermissionAnswerer | undefined {
  if (!inPlace) return undefined;
  return async (request) => {
    let answer: JsonObject;
    try {
      answer = await context.elicit(
        {
          mode: 'form',
          message: permissionMessage(request, runId() ?? 'this run'),
          requestedSchema: permissionSchema(request.options),
        },
        { key: permissionKey(request.requestId) },
      );
    } catch {
      // Cannot ask this caller: an operator (subagent.approve) or the policy's timeout decides.
      return undefined;
    }
    return chosenOption(answer, request);
  };
}

/**
 * Prompts that were already pending when a caller started following the run (attach) are put to
 * it too; its answer counts as the caller's, unless someone answered first.
 */
export function askPending(
  supervisor: Supervisor,
  handle: string,
  answerer: PermissionAnswerer,
  signal: AbortSignal,
): void {
  let pending: PermissionRequest[];
  try {
    pending = (supervisor.status(handle).pendingPermissions ?? []).map(
      ({ requestId, toolCall, options }) => ({
        requestId,
        toolCall,
        options,
      }),
    );
  } catch {
    return; // not on this replica
  }
  for (const request of pending) {
    answerer(request, signal).then(
      (optionId) => {
        if (optionId === undefined || signal.aborted) return;
        try {
          supervisor.approve(handle, request.requestId, optionId, 'caller');
        } catch {
          // Decided meanwhile (policy timeout, operator, another caller): the first answer counted.
        }
      },
      () => {},
    );
  }
}
