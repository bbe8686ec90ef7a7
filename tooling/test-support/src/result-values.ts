/** Reading tool and resource results the way the e2e tests assert on them. */
import type { Json } from './ndjson-client.js';

/** The JSON in a tool result's structuredContent, else its first text block. */
export function toolValue(result: Json): Json {
  if (result.structuredContent !== undefined) return result.structuredContent as Json;
  const content = result.content as { text?: string }[] | undefined;
  return JSON.parse(content?.[0]?.text ?? 'null') as Json;
}

/** The JSON body of a resources/read result. */
export function resourceValue(result: Json): Json {
  const contents = result.contents as { text?: string }[];
  return JSON.parse(contents[0]?.text ?? 'null') as Json;
}
