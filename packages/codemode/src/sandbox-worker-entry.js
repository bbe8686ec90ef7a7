/**
 * The sandbox worker as a package entry point (`@agentd/codemode/sandbox-worker`), for bundlers:
 * bundle it as a second entry named `sandbox-worker` beside the server bundle (or pass its URL as
 * `workerUrl`). Imported on the main thread it does nothing.
 */
import { isMainThread } from 'node:worker_threads';

if (!isMainThread) await import('./sandbox-worker.js');
