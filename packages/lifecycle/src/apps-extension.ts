/**
 * MCP Apps (SEP-1865, stable 2026-01-26) as protocol rules: the `io.modelcontextprotocol/ui`
 * extension's identifiers, the `_meta.ui` shapes of UI resources and app tools, and the checks
 * ext-apps' validator makes of a server (APP-001..011). The registration API lives in `@agentd/dispatch`.
 */
import { isJsonObject, type JsonObject } from '@agentd/rpc-frame';

export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';

/** The one content type of a UI resource. */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** The deprecated flat tool `_meta` key, still read by hosts built before `_meta.ui`; written beside it. */
const APP_RESOURCE_URI_META = 'ui/resourceUri';

/** Who may call a tool: the agent (`model`), the app on the same connection (`app`). */
export type AppVisibility = 'model' | 'app';

/** A UI resource's Content Security Policy: origins such as `https://api.example.com` or `https://*.example.com`. */
export interface AppCsp {
  /** `connect-src`: fetch, XHR, WebSocket. */
  connectDomains?: readonly string[];
  /** `script-src`, `style-src`, `img-src`, `font-src`, `media-src`. */
  resourceDomains?: readonly string[];
  /** `frame-src`: nested iframes. */
  frameDomains?: readonly string[];
  /** `base-uri`. */
  baseUriDomains?: readonly string[];
}

/** Browser features the view asks for (the host MAY grant them through the iframe's `allow`). */
export interface AppPermissions {
  camera?: Record<string, never>;
  microphone?: Record<string, never>;
  geolocation?: Record<string, never>;
  clipboardWrite?: Record<string, never>;
}

/** A UI resource's `_meta.ui` (McpUiResourceMeta). */
export interface AppResourceUi {
  csp?: AppCsp;
  permissions?: AppPermissions;
  /** A dedicated sandbox origin; its format is the host's. */
  domain?: string;
  /** `true`: the host draws a border and background; `false`: none; omitted: the host decides. */
  prefersBorder?: boolean;
}

/** A tool's `_meta.ui` (McpUiToolMeta). */
export interface AppToolUi {
  /** The `ui://` resource the host renders the tool's results with. */
  resourceUri: string;
  /** Default `["model", "app"]`. */
  visibility?: readonly AppVisibility[];
}

const CSP_KEYS: ReadonlySet<string> = new Set([
  'connectDomains',
  'resourceDomains',
  'frameDomains',
  'baseUriDomains',
]);
const PERMISSION_KEYS: ReadonlySet<string> = new Set([
  'camera',
  'microphone',
  'geolocation',
  'clipboardWrite',
]);
const RESOURCE_UI_KEYS: ReadonlySet<string> = new Set(['csp', 'permissions', 'domain', 'prefersBorder']);

/** A CSP source the validator accepts (APP-009): scheme, optional `*.` wildcard, host[:port], no path. */
const ORIGIN_PATTERN = /^(https?|wss?):\/\/(\*\.)?[^\s/*]+$/;

/** APP-001: UI resources live under `ui://`. */
export function isUiUri(uri: unknown): uri is string {
  return typeof uri === 'string' && /^ui:\/\/[^\s]+$/.test(uri);
}

/** APP-004 as the validator checks it: a document that opens with `<!doctype html` or has an `<html>` element early on. */
export function looksLikeHtmlDocument(content: string): boolean {
  const head = content.trim().slice(0, 1024).toLowerCase();
  return head.startsWith('<!doctype html') || /<html[\s>]/.test(head);
}

/** What is wrong with a resource's `_meta.ui` (APP-008, APP-009), or undefined. Unknown keys are refused as typos. */
export function appResourceUiProblem(ui: unknown): string | undefined {
  if (!isJsonObject(ui)) return '_meta.ui must be an object';
  for (const key of Object.keys(ui)) {
    if (!RESOURCE_UI_KEYS.has(key))
      return `_meta.ui.${key} is not a UI resource field (csp, permissions, domain, prefersBorder)`;
  }
  if (ui.domain !== undefined && (typeof ui.domain !== 'string' || ui.domain === ''))
    return '_meta.ui.domain must be a non-empty string';
  if (ui.prefersBorder !== undefined && typeof ui.prefersBorder !== 'boolean')
    return '_meta.ui.prefersBorder must be a boolean';
  if (ui.permissions !== undefined) {
    if (!isJsonObject(ui.permissions)) return '_meta.ui.permissions must be an object';
    for (const [key, value] of Object.entries(ui.permissions)) {
      if (!PERMISSION_KEYS.has(key))
        return `_meta.ui.permissions.${key} is not a permission (camera, microphone, geolocation, clipboardWrite)`;
      if (!isJsonObject(value) || Object.keys(value).length > 0)
        return `_meta.ui.permissions.${key} must be {}`;
    }
  }
  if (ui.csp !== undefined) {
    if (!isJsonObject(ui.csp)) return '_meta.ui.csp must be an object';
    for (const [key, value] of Object.entries(ui.csp)) {
      if (!CSP_KEYS.has(key))
        return `_meta.ui.csp.${key} is not a CSP field (connectDomains, resourceDomains, frameDomains, baseUriDomains)`;
      if (!Array.isArray(value)) return `_meta.ui.csp.${key} must be an array of origins`;
      for (const origin of value) {
        if (typeof origin !== 'string' || !ORIGIN_PATTERN.test(origin))
          return `_meta.ui.csp.${key} entry ${JSON.stringify(origin)} is not an origin such as "https://api.example.com" or "https://*.example.com"`;
      }
    }
  }
  return undefined;
}

/** What is wrong with a tool's UI link (APP-001, APP-007, APP-011), or undefined. */
export function appToolUiProblem(ui: unknown): string | undefined {
  if (!isJsonObject(ui)) return 'ui must be an object {resourceUri, visibility?}';
  for (const key of Object.keys(ui)) {
    if (key === 'csp' || key === 'permissions') return `ui.${key} belongs on the UI resource, not the tool`;
    if (key !== 'resourceUri' && key !== 'visibility')
      return `ui.${key} is not a tool UI field (resourceUri, visibility)`;
  }
  if (!isUiUri(ui.resourceUri)) return `ui.resourceUri ${JSON.stringify(ui.resourceUri)} must be a ui:// URI`;
  const visibility = ui.visibility;
  if (visibility === undefined) return undefined;
  if (!Array.isArray(visibility) || visibility.length === 0)
    return 'ui.visibility must be a non-empty array of "model" | "app"';
  for (const entry of visibility) {
    if (entry !== 'model' && entry !== 'app')
      return `ui.visibility entry ${JSON.stringify(entry)} is not one of "model" | "app"`;
  }
  if (new Set(visibility).size !== visibility.length) return 'ui.visibility lists an entry twice';
  return undefined;
}

/** Whether the agent may see and call a tool with this visibility (the default includes `model`). */
export function visibleToModel(visibility: readonly AppVisibility[] | undefined): boolean {
  return visibility === undefined || visibility.includes('model');
}

/**
 * A tool's `_meta` with its UI link: `ui` ({resourceUri, visibility?}) plus the deprecated flat
 * `ui/resourceUri` for hosts that only read that, as ext-apps' `registerAppTool` writes them.
 */
export function appToolMeta(ui: AppToolUi, meta: JsonObject = {}): JsonObject {
  const link: JsonObject = { resourceUri: ui.resourceUri };
  if (ui.visibility !== undefined) link.visibility = [...ui.visibility];
  return { ...meta, ui: link, [APP_RESOURCE_URI_META]: ui.resourceUri };
}
