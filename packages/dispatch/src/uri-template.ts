/** RFC 6570 URI templates (levels 1-4 operators) used in reverse: does a URI match, and with which variables. */
import type { LocalError } from '@agentd/rpc-frame';
import { type DispatchErrorCode, dispatchError } from './local-errors.js';

export type TemplateVariables = Record<string, string | string[]>;

interface Variable {
  name: string;
  explode: boolean;
}

interface Expression {
  operator: string;
  variables: Variable[];
}

const OPERATORS = new Set(['+', '#', '.', '/', ';', '?', '&']);
const VAR_NAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$/;

export class UriTemplate {
  readonly template: string;
  readonly variableNames: readonly string[];
  readonly #regex: RegExp;
  readonly #expressions: Expression[];

  constructor(template: string) {
    this.template = template;
    const { pattern, expressions } = compile(template);
    this.#regex = new RegExp(`^${pattern}$`);
    this.#expressions = expressions;
    this.variableNames = expressions.flatMap((e) => e.variables.map((v) => v.name));
  }

  /** The variables when `uri` is an expansion of this template, else undefined. */
  match(uri: string): TemplateVariables | undefined {
    const found = this.#regex.exec(uri);
    if (!found) return undefined;
    const out: TemplateVariables = {};
    try {
      this.#expressions.forEach((expression, index) => {
        const raw = found[index + 1];
        if (raw !== undefined && raw !== '') readExpression(expression, raw, out);
      });
    } catch {
      return undefined; // malformed percent-encoding: not an expansion of this template
    }
    return out;
  }
}

function compile(template: string): { pattern: string; expressions: Expression[] } {
  const expressions: Expression[] = [];
  let pattern = '';
  let rest = template;
  while (rest.length > 0) {
    const open = rest.indexOf('{');
    const literal = open === -1 ? rest : rest.slice(0, open);
    if (literal.includes('}')) throw invalid(template, 'unbalanced "}"');
    pattern += escapeRegex(literal);
    if (open === -1) break;
    const close = rest.indexOf('}', open);
    if (close === -1) throw invalid(template, 'unclosed "{"');
    const expression = parseExpression(rest.slice(open + 1, close), template);
    expressions.push(expression);
    pattern += `(${expressionPattern(expression)})?`;
    rest = rest.slice(close + 1);
  }
  return { pattern, expressions };
}

function parseExpression(body: string, template: string): Expression {
  const operator = OPERATORS.has(body[0] ?? '') ? (body[0] as string) : '';
  const list = operator === '' ? body : body.slice(1);
  const variables = list.split(',').map((spec) => {
    const explode = spec.endsWith('*');
    const name = (explode ? spec.slice(0, -1) : spec).replace(/:\d{1,4}$/, '');
    if (!VAR_NAME.test(name)) throw invalid(template, `bad variable ${JSON.stringify(spec)}`);
    return { name, explode };
  });
  return { operator, variables };
}

function expressionPattern({ operator }: Expression): string {
  switch (operator) {
    case '':
      return '[^/?#]*?';
    case '+':
      return '[^?#]*?';
    case '#':
      return '#.*?';
    case '.':
      return '\\.[^/?#]*?';
    case '/':
      return '/[^?#]*?';
    case ';':
      return ';[^/?#]*?';
    case '?':
      return '\\?[^#]*?';
    default:
      return '&[^#]*?';
  }
}

function readExpression(expression: Expression, raw: string, out: TemplateVariables): void {
  const { operator, variables } = expression;
  const body = operator === '' || operator === '+' ? raw : raw.slice(1);
  if (operator === ';' || operator === '?' || operator === '&') {
    readNamed(variables, body, operator === ';' ? ';' : '&', out);
    return;
  }
  const separator = operator === '.' ? '.' : operator === '/' ? '/' : ',';
  const single = variables.length === 1 ? variables[0] : undefined;
  if (single?.explode) {
    out[single.name] = body.split(separator).map(decodeURIComponent);
    return;
  }
  if (single) {
    out[single.name] = decodeURIComponent(body);
    return;
  }
  const parts = body.split(separator);
  variables.forEach((variable, index) => {
    const part = parts[index];
    if (part !== undefined) out[variable.name] = decodeURIComponent(part);
  });
}

function readNamed(variables: Variable[], body: string, separator: string, out: TemplateVariables): void {
  const wanted = new Map(variables.map((v) => [v.name, v]));
  for (const pair of body.split(separator)) {
    const eq = pair.indexOf('=');
    const name = decodeURIComponent(eq === -1 ? pair : pair.slice(0, eq));
    const value = eq === -1 ? '' : decodeURIComponent(pair.slice(eq + 1));
    const variable = wanted.get(name);
    if (!variable) continue;
    const previous = out[name];
    if (previous === undefined) out[name] = variable.explode ? [value] : value;
    else out[name] = [...(Array.isArray(previous) ? previous : [previous]), value];
  }
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function invalid(template: string, reason: string): LocalError<DispatchErrorCode> {
  return dispatchError('invalid_uri_template', `invalid URI template ${JSON.stringify(template)}: ${reason}`);
}
