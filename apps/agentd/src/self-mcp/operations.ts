/** The self-MCP operations: work operations for every peer, operator operations for management peers. */
import { ToolResult } from '@agentd/dispatch';
import { type JsonObject, LocalError } from '@agentd/rpc-frame';
import type { AgentdErrorCode } from '../local-errors.js';
import type { SpawnRequest, SubagentStatus, Supervisor } from '../supervisor/index.js';
import { mayHoldTasks } from './anonymous-tasks.js';
import { modernAttach, modernSend, modernSpawn } from './modern-calls.js';
import type { OperationContext, OperationSpec } from './operation-spec.js';
import { PARKED, ParkedPrompts } from './parked-prompts.js';
import { askPending, elicitingAnswerer } from './permission-elicit.js';
import { mayAnswerFor, starterOf } from './run-access.js';
import { attachRun } from './run-attach.js';
import { forwardRunEvents } from './run-event-forward.js';
import { localStatus, type RunIndex } from './run-index.js';
import { turnView } from './run-view.js';
import { runSpawnTask, SPAWN_TASK_TTL_MS } from './spawn-task.js';
import { statusJson } from './status-json.js';
import { approveOperation } from './subagent-approve.js';

export interface OperationHost {
  supervisor(): Supervisor;
  /** Runs by handle wherever they run (this process, or the fleet). */
  runs(): RunIndex;
  /** Agent profile names and descriptions, for the spawn schema (changes on reload). */
  agents(): { name: string; description?: string }[];
  defaultAgent(): string;
  statusBody(): JsonObject;
  /** Starts the graceful drain that ends with exit 0. */
  beginDrain(deadlineMs: number | undefined): JsonObject;
  setReady(ready: boolean): JsonObject;
  /** Re-reads the config file and applies it atomically, or keeps the running config and says why. */
  reload(trigger: string): JsonObject;
}

const handleArg = { type: 'string', minLength: 1, description: 'Handle returned by subagent.spawn.' };
/** The arguments of an operation on one run: its handle and nothing else. */
const handleOnly = {
  type: 'object',
  additionalProperties: false,
  required: ['handle'],
  properties: { handle: handleArg },
};

function spawnArgs(host: OperationHost): JsonObject {
  const agents = host.agents();
  const list = agents
    .map((a) => (a.description ? `'${a.name}' (${a.description})` : `'${a.name}'`))
    .join('; ');
  return {
    type: 'object',
    additionalProperties: false,
    required: ['instruction'],
    properties: {
      agent: {
        type: 'string',
        enum: agents.map((a) => a.name),
        description: `Agent profile (default '${host.defaultAgent()}'): ${list}.`,
      },
      instruction: { type: 'string', minLength: 1, description: 'What the subagent should do.' },
      async: { type: 'boolean', description: 'Return a handle at once instead of waiting for the result.' },
      warm: {
        type: 'boolean',
        description: 'Keep a live session after the first turn; continue it with subagent.send.',
      },
      timeoutMs: {
        type: 'integer',
        minimum: 1,
        description:
          'Kill the run if it takes longer (per turn for warm sessions). Restricted peers may ask for at most limits.restrictedMaxTimeoutMs.',
      },
      cwd: {
        type: 'string',
        minLength: 1,
        description:
          "A directory inside the agent profile's working directory (relative to it) to start the agent in; with a workspace, that directory inside the run's own worktree or copy. A path outside is refused (workspace_escape).",
      },
      budget: {
        type: 'object',
        additionalProperties: false,
        description:
          "Stop the run once it spends more (it fails with budget_exceeded); the profile's budget still holds where smaller.",
        properties: {
          maxCostUsd: { type: 'number', exclusiveMinimum: 0 },
          maxTokens: { type: 'integer', minimum: 1, description: 'Input, output and cache tokens together.' },
        },
      },
    },
  };
}

/**
 * A run that ended badly answers `isError: true` (hosts that only read isError must not report
 * success), still carrying the full status as structured content. In Code Mode the script
 * receives the status as a value either way and decides itself.
 */
function spawnResult(status: SubagentStatus | JsonObject, instanceId?: string): JsonObject | ToolResult {
  const body = statusJson(status as SubagentStatus);
  if (instanceId !== undefined) body.instance = instanceId;
  if (status.terminal !== true || status.state === 'succeeded') return body;
  return new ToolResult({
    content: [{ type: 'text', text: JSON.stringify(body) }],
    structuredContent: body,
    isError: true,
  });
}

/**
 * A turn goes to the process, so only the replica that owns a warm session can run it; the
 * others say where it lives instead of "unknown handle".
 */
async function sendHere<T>(host: OperationHost, handle: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (!(error instanceof LocalError) || error.code !== 'unknown_handle') throw error;
    const remote = await host.runs().find(handle);
    if (remote === undefined) throw error;
    throw new LocalError<AgentdErrorCode>(
      'remote_session',
      `this session lives on instance ${String(remote.instance)}; its turns must reach that replica`,
    );
  }
}

/** The run id of a run this replica tracks (names the run in its notifications), else undefined. */
function localRunId(supervisor: Supervisor, handle: string): string | undefined {
  try {
    return supervisor.status(handle).runId;
  } catch {
    return undefined;
  }
}

export function buildOperations(host: OperationHost): OperationSpec[] {
  const sup = () => host.supervisor();
  // 2026-07-28 calls that a permission prompt ended, waiting for their retry (parked-prompts.ts).
  const prompts = new ParkedPrompts((handle, requestId) => {
    try {
      return (
        sup()
          .status(handle)
          .pendingPermissions?.some((p) => p.requestId === requestId) === true
      );
    } catch {
      return false; // the run is gone
    }
  });
  const modern = () => ({ supervisor: sup(), runs: host.runs(), prompts });
  const announce = (context: OperationContext) => (status: SubagentStatus) =>
    // The caller learns its run at once (a log notification when it asked for logs), so a
    // client that is interrupted can say which run it cancelled and confirm it ended.
    context.log('info', {
      event: 'started',
      handle: status.handle,
      runId: status.runId,
      agent: status.agent,
    });
  const work: OperationSpec[] = [
    {
      kind: 'query',
      id: 'status',
      description: 'Daemon status: readiness, pause/drain state, running and warm subagents, totals, limits.',
      args: { type: 'object', additionalProperties: false, properties: {} },
      outputType: 'AgentdStatus',
      operator: false,
      handler: async () => host.statusBody(),
    },
    {
      kind: 'command',
      id: 'subagent.spawn',
      description:
        'Start a subagent. Sync (default) waits for the result; async returns a handle to poll with subagent.status; warm keeps a live session for subagent.send.',
      args: spawnArgs(host),
      outputType: 'SubagentStatus',
      operator: false,
      taskTtlMs: SPAWN_TASK_TTL_MS,
      handler: async (args, context) => {
        // Who asks decides whose run it is: who may read it by run id, whose pool share it takes.
        const request: SpawnRequest = {
          instruction: args.instruction as string,
          startedBy: starterOf(context.peer),
        };
        if (typeof args.agent === 'string') request.agent = args.agent;
        if (typeof args.async === 'boolean') request.async = args.async;
        if (typeof args.warm === 'boolean') request.warm = args.warm;
        if (typeof args.timeoutMs === 'number') request.timeoutMs = args.timeoutMs;
        if (typeof args.cwd === 'string') request.cwd = args.cwd;
        if (typeof args.budget === 'object' && args.budget !== null)
          request.budget = args.budget as NonNullable<SpawnRequest['budget']>;
        // An async spawn for a client that takes tasks answers with a task that follows the run;
        // an anonymous peer gets the handle instead (anonymous-tasks.ts: they would share one task owner).
        const task =
          request.async === true && mayHoldTasks(context.peer) ? await context.detach() : undefined;
        if (task !== undefined) {
          const body = await runSpawnTask(sup(), request, context, (handle) =>
            host.runs().bindTask(handle, task),
          );
          const instance = host.runs().instanceId;
          return instance === undefined ? body : { ...body, instance };
        }
        if (context.era === 'modern') {
          const status = await modernSpawn(modern(), request, context, announce(context));
          if (status === PARKED) return PARKED;
          await host.runs().settled(String(status.handle));
          return spawnResult(status, host.runs().instanceId);
        }
        // Tied to the request until it answers: a caller that gives up before it has the handle
        // (cancelled, disconnected) cancels the run instead of leaving an orphan nobody can reach.
        let started: SubagentStatus | undefined;
        const onPermission = elicitingAnswerer(context, () => started?.runId);
        const status = await sup().spawn(request, context.signal, {
          onStart: (status) => {
            started = status;
            announce(context)(status);
          },
          onEvent: forwardRunEvents(context, { runId: () => started?.runId, handle: () => started?.handle }),
          ...(onPermission === undefined ? {} : { onPermission }),
        });
        // What a caller was told is readable from every replica before it is told.
        await host.runs().settled(status.handle);
        return spawnResult(status, host.runs().instanceId);
      },
    },
    {
      kind: 'command',
      id: 'subagent.send',
      description: 'Send one turn to a warm session and wait for its reply.',
      args: {
        type: 'object',
        additionalProperties: false,
        required: ['handle', 'message'],
        properties: {
          handle: handleArg,
          message: { type: 'string', minLength: 1 },
          timeoutMs: {
            type: 'integer',
            minimum: 1,
            description: "Bounds this turn (default: the session's timeout).",
          },
        },
      },
      outputType: 'SendResult',
      operator: false,
      handler: async (args, context) => {
        const handle = args.handle as string;
        const id = localRunId(sup(), handle);
        const runId = (): string | undefined => id;
        const answers = mayAnswerFor(context.peer, localStatus(sup(), handle));
        const onPermission = answers ? elicitingAnswerer(context, runId) : undefined;
        const options = {
          onEvent: forwardRunEvents(context, { runId, handle: () => handle }),
          ...(onPermission === undefined ? {} : { onPermission }),
          sentBy: starterOf(context.peer),
          ...(typeof args.timeoutMs === 'number' ? { timeoutMs: args.timeoutMs } : {}),
        };
        const message = args.message as string;
        if (context.era === 'modern')
          return sendHere(host, handle, () =>
            modernSend(modern(), handle, message, context, options, answers),
          );
        const reply = await sendHere(host, handle, () =>
          sup().send(handle, message, context.signal, options),
        );
        return turnView(reply) as JsonObject;
      },
    },
    {
      kind: 'query',
      id: 'subagent.status',
      description: 'Status of a subagent run or warm session, with its result once terminal.',
      args: handleOnly,
      outputType: 'SubagentStatus',
      operator: false,
      handler: async (args) => host.runs().status(args.handle as string),
    },
    {
      kind: 'query',
      id: 'subagent.attach',
      description:
        'Follow a running subagent: its recent output lines first, then its output and events as they come (progress and log notifications, as a sync spawn streams them), its permission prompts put to the caller (elicitation); answers with its status once it ends (a warm session: once its turn is done). Leaving never cancels the run.',
      args: handleOnly,
      outputType: 'SubagentStatus',
      operator: false,
      handler: async (args, context) => {
        const handle = args.handle as string;
        if (context.era === 'modern') {
          const answers = mayAnswerFor(context.peer, localStatus(sup(), handle));
          const status = await modernAttach(modern(), handle, context, answers);
          return status === PARKED ? PARKED : spawnResult(status);
        }
        const id = localRunId(sup(), handle);
        const runId = (): string | undefined => id;
        const answers = mayAnswerFor(context.peer, localStatus(sup(), handle));
        const answerer = answers ? elicitingAnswerer(context, runId) : undefined;
        if (answerer !== undefined) askPending(sup(), handle, answerer, context.signal);
        const status = await attachRun(
          sup(),
          host.runs(),
          handle,
          context,
          forwardRunEvents(context, { runId, handle: () => handle }),
          answerer,
        );
        return spawnResult(status);
      },
    },
    {
      kind: 'command',
      id: 'subagent.cancel',
      description: 'Cancel a run or end a warm session; kills its whole process tree.',
      args: {
        type: 'object',
        additionalProperties: false,
        required: ['handle'],
        properties: { handle: handleArg, reason: { type: 'string' } },
      },
      outputType: 'SubagentStatus',
      operator: false,
      handler: async (args) =>
        host.runs().cancel(args.handle as string, (args.reason as string | undefined) ?? 'cancelled by peer'),
    },
    {
      kind: 'command',
      id: 'subagent.close',
      description:
        'End a conversation (warm session) gracefully once its turn is done; answers its final status. A run that already ended answers its status.',
      args: handleOnly,
      outputType: 'SubagentStatus',
      operator: false,
      handler: async (args) => {
        const handle = args.handle as string;
        const status = await sendHere(host, handle, async () => sup().status(handle));
        if (status.terminal) return statusJson(status);
        return statusJson(await sup().closeSession(handle));
      },
    },
    approveOperation(host),
  ];
  return [...work, ...operatorOperations(host)];
}

function operatorOperations(host: OperationHost): OperationSpec[] {
  const sup = () => host.supervisor();
  const empty = { type: 'object', additionalProperties: false, properties: {} };
  const pauseSwitch = (id: string, description: string, paused: boolean): OperationSpec => ({
    kind: 'command',
    id,
    description,
    args: empty,
    outputType: 'PauseState',
    operator: true,
    handler: async () => {
      if (paused) sup().pause();
      else sup().resume();
      const s = sup().snapshot();
      return { paused: s.paused, running: s.running, warm: s.warm };
    },
  });
  return [
    {
      kind: 'command',
      id: 'drain',
      description:
        'Stop accepting spawns, let running subagents finish until the deadline, cancel the rest, then exit 0.',
      args: {
        type: 'object',
        additionalProperties: false,
        properties: {
          deadlineMs: { type: 'integer', minimum: 0, description: 'Default: drainTimeoutMs from config.' },
        },
      },
      outputType: 'DrainStarted',
      operator: true,
      handler: async (args) => host.beginDrain(args.deadlineMs as number | undefined),
    },
    {
      kind: 'command',
      id: 'lame-duck',
      description: 'Flip readiness (ready:false tells load balancers to stop routing here) without draining.',
      args: {
        type: 'object',
        additionalProperties: false,
        properties: { ready: { type: 'boolean', description: 'Default false.' } },
      },
      outputType: 'Readiness',
      operator: true,
      handler: async (args) => host.setReady(args.ready === true),
    },
    pauseSwitch('pause', 'Refuse new spawns and turns until resume; running subagents continue.', true),
    pauseSwitch('resume', 'Accept spawns again after pause.', false),
    {
      kind: 'command',
      id: 'reload',
      description:
        'Re-read the config file and apply it atomically (as SIGHUP does); an invalid file changes nothing and the reasons are returned.',
      args: empty,
      outputType: 'ReloadResult',
      operator: true,
      handler: async () => host.reload('reload operation'),
    },
    {
      kind: 'command',
      id: 'workspace.prune',
      description:
        "Remove the worktrees and copies of runs that are no longer live (kept ones, and those a crashed daemon left). A worktree's uncommitted work is committed on its branch agentd/<runId> first; a branch that holds no work is deleted, one that does is kept.",
      args: empty,
      outputType: 'PruneReport',
      operator: true,
      handler: async () => ({ ...(await sup().pruneWorkspaces()) }),
    },
    {
      kind: 'command',
      id: 'cancel',
      description: 'Cancel one subagent by handle, or every live subagent when no handle is given.',
      args: {
        type: 'object',
        additionalProperties: false,
        properties: { handle: handleArg, reason: { type: 'string' } },
      },
      outputType: 'CancelResult',
      operator: true,
      handler: async (args) => {
        const reason = (args.reason as string | undefined) ?? 'cancelled by operator';
        if (typeof args.handle === 'string')
          return { cancelled: [await host.runs().cancel(args.handle, reason)] };
        const live = sup()
          .list()
          .filter((s) => !s.terminal);
        await sup().cancelAll(reason);
        return { cancelled: live.map((s) => ({ handle: s.handle, runId: s.runId })) };
      },
    },
  ];
}
