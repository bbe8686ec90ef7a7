/**
 * Anonymous HTTP peers get no MCP tasks. A task store binds a task to `origin:principal`, which
 * makes every anonymous peer the same owner: one could list another's tasks and read their
 * results, a run's output and handle among them. An anonymous async spawn answers with the
 * handle instead, which only its caller holds.
 */
import type { Middleware } from '@agentd/dispatch';
import { refuse } from '@agentd/lifecycle';
import type { Peer } from '@agentd/server';

export function mayHoldTasks(peer: Peer): boolean {
  return !(peer.origin === 'anonymous' || (peer.transport === 'http' && peer.auth === undefined));
}

/** 2025-11-25 tasks are requested by the caller (`params.task`): refused here, before a task exists. */
export const refuseAnonymousTasks: Middleware = async (ctx, next) => {
  if (ctx.method === 'tools/call' && ctx.params.task !== undefined && !mayHoldTasks(ctx.peer)) {
    throw refuse.invalidParams(
      'tasks need an authenticated peer (anonymous peers would share them); call without `task`: an async spawn answers with its handle',
      { reason: 'anonymous_task' },
    );
  }
  return next();
};
