/** ClientFilters: per-peer visibility and callability rules over tool names (`{kind}_{id}` for operations), resources and prompts. */
import { compilePatterns, type NameMatcher, normalizeToolName } from './glob.js';
import { canonicalJson } from './json.js';

/** Allow/deny glob lists. Deny wins; an empty or missing allow list allows everything. */
interface VisibilityRules {
  allow?: readonly string[];
  deny?: readonly string[];
}

/** `{ toolPattern: { argumentName: [allowed or denied JSON values] } }`. */
type ArgumentValueRules = Readonly<Record<string, Readonly<Record<string, readonly unknown[]>>>>;

interface CallableRules {
  /** Per tool (glob), per argument: the only values allowed. A missing argument fails. */
  allow?: ArgumentValueRules;
  /** Per tool (glob), per argument: values that are refused. */
  deny?: ArgumentValueRules;
  /** Tools (globs) that stay visible but can never be called by this peer. */
  denyTools?: readonly string[];
}

export interface ClientFilters {
  /** Tool visibility by name; operations match as `{kind}_{id}` in both exposure modes. */
  visible?: VisibilityRules;
  callable?: CallableRules;
  /** Resource visibility by URI (templates by their `uriTemplate`). */
  resources?: VisibilityRules;
  /** Prompt visibility by name. */
  prompts?: VisibilityRules;
}

export interface CompiledFilters {
  /** True when no rule hides anything: list pages can be served precomputed. */
  readonly permissive: boolean;
  toolVisible(name: string): boolean;
  /** For `search`/`execute`: only deny rules apply, never an operation-level allow list. */
  metaToolVisible(name: string): boolean;
  /** undefined when callable, else the reason. */
  callRefusal(name: string, args: Record<string, unknown>): string | undefined;
  resourceVisible(uriOrTemplate: string): boolean;
  promptVisible(name: string): boolean;
  /** Set by scope checks (scopes.ts): the scopes a tool visible but for them needs and the peer lacks. */
  missingScopes?(name: string): readonly string[] | undefined;
}

interface ArgumentRule {
  tool: NameMatcher;
  argument: string;
  values: Set<string>;
}

const cache = new WeakMap<ClientFilters, CompiledFilters>();

const ALLOW_ALL: CompiledFilters = {
  permissive: true,
  toolVisible: () => true,
  metaToolVisible: () => true,
  callRefusal: () => undefined,
  resourceVisible: () => true,
  promptVisible: () => true,
};

/** Compiles once per filters object (cached by identity). */
export function compileFilters(filters: ClientFilters | undefined): CompiledFilters {
  if (filters === undefined) return ALLOW_ALL;
  const cached = cache.get(filters);
  if (cached) return cached;
  const compiled = buildFilters(filters);
  cache.set(filters, compiled);
  return compiled;
}

function visibility(rules: VisibilityRules | undefined, normalize?: (s: string) => string) {
  const allow = compilePatterns(rules?.allow, normalize);
  const deny = compilePatterns(rules?.deny, normalize);
  return {
    trivial: allow === undefined && deny === undefined,
    visible: (name: string) => !deny?.(name) && (allow === undefined || allow(name)),
    notDenied: (name: string) => !deny?.(name),
  };
}

function argumentRules(rules: ArgumentValueRules | undefined): ArgumentRule[] {
  const out: ArgumentRule[] = [];
  for (const [tool, byArgument] of Object.entries(rules ?? {})) {
    const matcher = compilePatterns([tool], normalizeToolName);
    if (!matcher) continue;
    for (const [argument, values] of Object.entries(byArgument)) {
      out.push({ tool: matcher, argument, values: new Set(values.map(canonicalJson)) });
    }
  }
  return out;
}

function buildFilters(filters: ClientFilters): CompiledFilters {
  const tools = visibility(filters.visible, normalizeToolName);
  const resources = visibility(filters.resources);
  const prompts = visibility(filters.prompts);
  const allowRules = argumentRules(filters.callable?.allow);
  const denyRules = argumentRules(filters.callable?.deny);
  const deniedTools = compilePatterns(filters.callable?.denyTools, normalizeToolName);
  return {
    permissive: tools.trivial && resources.trivial && prompts.trivial,
    toolVisible: (name) => tools.visible(normalizeToolName(name)),
    metaToolVisible: (name) => tools.notDenied(normalizeToolName(name)),
    resourceVisible: resources.visible,
    promptVisible: prompts.visible,
    callRefusal(rawName, args) {
      const name = normalizeToolName(rawName);
      if (deniedTools?.(name)) return `tool \`${rawName}\` is not callable by this client`;
      for (const rule of denyRules) {
        if (!rule.tool(name) || !(rule.argument in args)) continue;
        if (rule.values.has(canonicalJson(args[rule.argument])))
          return `argument \`${rule.argument}\` value not allowed`;
      }
      for (const rule of allowRules) {
        if (!rule.tool(name)) continue;
        if (!(rule.argument in args)) return `argument \`${rule.argument}\` is required by filter`;
        if (!rule.values.has(canonicalJson(args[rule.argument]))) {
          return `argument \`${rule.argument}\` value not in allowlist`;
        }
      }
      return undefined;
    },
  };
}
