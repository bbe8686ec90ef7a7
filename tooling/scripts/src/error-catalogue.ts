/**
 * The error rule of docs/architecture.md, checked: protocol errors come from lifecycle's catalogue
 * (`refuse.*`), so production code outside the packages that own the wire vocabulary builds no
 * `WireError` (or `Refusal`) by hand and spells no `io.modelcontextprotocol/` key itself.
 */
import { isTestCode } from './test-files.js';
import { SKIPPED_DIRS, workspaceFiles } from './workspace-files.js';

/** What a breach is: a hand-built wire error, or a protocol key spelled out. */
export type CatalogueRule = 'wire-error' | 'protocol-key';

export interface CatalogueBreach {
  readonly rule: CatalogueRule;
  /** 1-based line. */
  readonly line: number;
}

/** A line (or the line above) with this marker is exempt; say why after the colon. */
export const CATALOGUE_MARKER = 'catalogue-exempt:';

/**
 * Who may do what. rpc-frame defines `WireError` and answers JSON-RPC framing errors itself;
 * lifecycle holds the catalogue and the `io.modelcontextprotocol/` keys (`MetaKey`, extension ids).
 */
const OWNERS: Readonly<Record<CatalogueRule, readonly string[]>> = {
  'wire-error': ['packages/rpc-frame/', 'packages/lifecycle/'],
  'protocol-key': ['packages/lifecycle/'],
};

/**
 * Outside the rule, with the reason. The runs page is a browser MCP client bundled on its own (it
 * imports none of the packages, so it spells the three `_meta` keys it sends).
 */
const EXEMPT_DIRS: Readonly<Record<string, string>> = {
  'apps/agentd/ui/': 'a browser client bundled without the packages',
};

/** A source file (TypeScript, or the plain JavaScript of the examples and codemode's guest). */
function isSource(path: string): boolean {
  return /\.(?:[mc]?ts|[mc]?js)$/.test(path) && !path.endsWith('.d.ts');
}

/** Tests, their helpers and child-process fixtures: `isTestCode` for TypeScript, the same folders for JavaScript. */
function isTestPath(path: string): boolean {
  return isTestCode(path) || /\.test\.[mc]?[jt]s$/.test(path) || /^apps\/[^/]+\/test\//.test(path);
}

/** Production code under apps, packages and examples (tests and their helpers left out). */
export function productionFiles(root: string): string[] {
  return workspaceFiles(
    root,
    ['apps', 'packages', 'examples'],
    (path) => isSource(path) && !isTestPath(path),
    new Set([...SKIPPED_DIRS, 'test-support']),
  );
}

/** Whether `path` may break `rule` (it belongs to an owner, or to an exempt folder). */
export function mayBreak(path: string, rule: CatalogueRule): boolean {
  const prefixes = [...OWNERS[rule], ...Object.keys(EXEMPT_DIRS)];
  return prefixes.some((prefix) => path.startsWith(prefix));
}

const PROTOCOL_PREFIX = 'io.modelcontextprotocol/';

/**
 * The breaches in one file's code: `new WireError(` / `new Refusal(` in code, and string literals
 * that start with `io.modelcontextprotocol/`. Comments are not code (a doc may name a key).
 */
export function catalogueBreaches(code: string): CatalogueBreach[] {
  const { text, keyLines } = scan(code);
  const lines = text.split('\n');
  const source = code.split('\n');
  const breaches: CatalogueBreach[] = [];
  const exempt = (line: number) =>
    (source[line - 1] ?? '').includes(CATALOGUE_MARKER) ||
    (source[line - 2] ?? '').includes(CATALOGUE_MARKER);
  lines.forEach((line, index) => {
    if (/\bnew\s+(?:WireError|Refusal)\s*\(/.test(line) && !exempt(index + 1))
      breaches.push({ rule: 'wire-error', line: index + 1 });
  });
  for (const line of keyLines) if (!exempt(line)) breaches.push({ rule: 'protocol-key', line });
  return breaches.sort((a, b) => a.line - b.line);
}

/**
 * Blanks comments and string contents (newlines kept, so lines still count) and notes the lines of
 * string literals that start with the protocol prefix. A template's `${…}` is read as string text:
 * close enough for a check that looks for `new WireError(` in code.
 */
function scan(code: string): { text: string; keyLines: number[] } {
  let out = '';
  const keyLines: number[] = [];
  let line = 1;
  let i = 0;
  while (i < code.length) {
    const char = code[i] as string;
    const next = code[i + 1];
    if (char === '/' && next === '/') {
      while (i < code.length && code[i] !== '\n') i++;
      continue;
    }
    if (char === '/' && next === '*') {
      const end = code.indexOf('*/', i + 2);
      const stop = end === -1 ? code.length : end + 2;
      const blanked = code.slice(i, stop).replace(/[^\n]/g, ' ');
      line += blanked.split('\n').length - 1;
      out += blanked;
      i = stop;
      continue;
    }
    if (char === "'" || char === '"' || char === '`') {
      if (code.startsWith(PROTOCOL_PREFIX, i + 1)) keyLines.push(line);
      out += char;
      i++;
      while (i < code.length && code[i] !== char) {
        if (code[i] === '\\') {
          out += ' ';
          i++;
        }
        if (code[i] === '\n') line++;
        out += code[i] === '\n' ? '\n' : ' ';
        i++;
      }
      out += char;
      i++;
      continue;
    }
    if (char === '\n') line++;
    out += char;
    i++;
  }
  return { text: out, keyLines };
}
