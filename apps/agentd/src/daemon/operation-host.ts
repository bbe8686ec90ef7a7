/** What the self-MCP operations act on: the supervisor, the runs, readiness, the drain and reloads. */
import type { JsonObject } from '@agentd/rpc-frame';
import type { JsonLineLogger } from '../log/logger.js';
import type { OperationHost } from '../self-mcp/operations.js';
import type { RunIndex } from '../self-mcp/run-index.js';
import type { Supervisor } from '../supervisor/index.js';
import type { Drain } from './drain.js';
import type { RunningConfig } from './running-config.js';

export interface DaemonOperationsParts {
  supervisor: Supervisor;
  runs: RunIndex;
  running: RunningConfig;
  logger: JsonLineLogger;
  drain: Drain;
  status: () => JsonObject;
  reload: (trigger: string) => JsonObject;
}

export class DaemonOperations implements OperationHost {
  constructor(private readonly parts: DaemonOperationsParts) {}

  supervisor(): Supervisor {
    return this.parts.supervisor;
  }

  runs(): RunIndex {
    return this.parts.runs;
  }

  agents(): { name: string; description?: string }[] {
    return Object.entries(this.parts.running.config.agents).map(([name, p]) =>
      p.description === undefined ? { name } : { name, description: p.description },
    );
  }

  defaultAgent(): string {
    return this.parts.running.config.defaultAgent;
  }

  statusBody(): JsonObject {
    return this.parts.status();
  }

  beginDrain(deadlineMs: number | undefined): JsonObject {
    const { drain, supervisor } = this.parts;
    const deadline = deadlineMs ?? this.parts.running.config.drainTimeoutMs;
    if (!drain.begun) void drain.begin(deadline, 'drain operation');
    const s = supervisor.snapshot();
    return {
      draining: true,
      startedAt: drain.state?.startedAt ?? new Date().toISOString(),
      deadlineMs: drain.state?.deadlineMs ?? deadline,
      running: s.running,
      warm: s.warm,
    };
  }

  setReady(ready: boolean): JsonObject {
    this.parts.supervisor.setReady(ready);
    this.parts.logger.info(ready ? 'readiness restored' : 'lame duck: readiness off');
    const s = this.parts.supervisor.snapshot();
    return { ready: s.ready, draining: s.draining, running: s.running, warm: s.warm };
  }

  reload(trigger: string): JsonObject {
    return this.parts.reload(trigger);
  }
}
