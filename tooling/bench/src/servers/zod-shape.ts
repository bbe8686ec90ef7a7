/** The catalogue's input schemas as zod raw shapes, the way SDK users declare tools. */
import { z } from 'zod';
import type { PropertySpec, ToolSpec } from '../catalogue.js';

function propertyType(p: PropertySpec): z.ZodType {
  if (p.type === 'string') return z.string().describe(p.description);
  if (p.type === 'boolean') return z.boolean().describe(p.description);
  return z
    .number()
    .int()
    .min(p.minimum ?? Number.MIN_SAFE_INTEGER)
    .max(p.maximum ?? Number.MAX_SAFE_INTEGER)
    .describe(p.description);
}

export function zodShape(tool: ToolSpec): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  for (const p of tool.properties) {
    const type = propertyType(p);
    shape[p.name] = p.name === tool.required ? type : type.optional();
  }
  return shape;
}
