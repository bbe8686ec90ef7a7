/** The MCP shapes lifecycle answers with: server identity and capabilities. */
import type { JsonObject } from '@agentd/rpc-frame';

/** What the server capabilities object may contain (MCP `ServerCapabilities`). */
export interface ServerCapabilities {
  tools?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  prompts?: { listChanged?: boolean };
  completions?: JsonObject;
  logging?: JsonObject;
  experimental?: JsonObject;
  extensions?: JsonObject;
  /** 2025-11-25 only (experimental tasks); the modern era uses the tasks extension instead. */
  tasks?: JsonObject;
}

export interface Implementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
}
