/** Validates one config layer against CONFIG_SCHEMA with ajv, turning ajv errors into readable issues. */
import { Ajv, type ErrorObject } from 'ajv';
import type { ConfigIssue } from './config-error.js';
import { CONFIG_SCHEMA } from './config-schema.js';
import { nearestName } from './nearest-name.js';

// verbose: an unknown key's error carries the schema it broke, whose properties are the suggestions.
const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, verbose: true });
const validate = ajv.compile(CONFIG_SCHEMA);

function describe(error: ErrorObject): { path: string; message: string } {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') {
    const key = String(params.additionalProperty);
    const known = (error.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
    const near = known === undefined ? undefined : nearestName(key, Object.keys(known));
    return {
      path: `${error.instancePath}/${key}`,
      message: `unknown key '${key}'${near === undefined ? '' : ` (did you mean \`${near}\`?)`}`,
    };
  }
  if (error.keyword === 'propertyNames') {
    return { path: error.instancePath, message: `invalid name '${String(params.propertyName)}'` };
  }
  if (error.keyword === 'enum') {
    const allowed = (params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ');
    return { path: error.instancePath, message: `must be one of ${allowed}` };
  }
  return { path: error.instancePath, message: error.message ?? error.keyword };
}

/** Returns the issues of one layer (empty when valid). `source` names the layer in messages. */
export function validateLayer(value: unknown, source: string): ConfigIssue[] {
  if (validate(value)) return [];
  const issues = (validate.errors ?? [])
    // propertyNames failures also report a redundant "pattern" error on the same name;
    // a failed if/then/else also reports that its branch failed (the branch's own error says why).
    .filter((e) => !(e.keyword === 'pattern' && e.propertyName !== undefined) && e.keyword !== 'if')
    .map((e) => ({ source, ...describe(e) }));
  const seen = new Set<string>();
  return issues.filter((i) => {
    const key = `${i.path}\u0000${i.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
