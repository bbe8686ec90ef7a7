/** Fixed payloads the conformance suite expects (a 1x1 PNG and a minimal WAV). */
export const TEST_IMAGE_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

export const TEST_AUDIO_BASE64 = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A one-field string form for elicitation requests. */
export function stringForm(field: string, description?: string) {
  const property: Record<string, unknown> = { type: 'string' };
  if (description !== undefined) property.description = description;
  return { type: 'object', properties: { [field]: property }, required: [field] };
}

/** Reads a string field from an ElicitResult's content. */
export function answer(result: Record<string, unknown>, field: string): string {
  const content = result.content as Record<string, unknown> | undefined;
  const value = content?.[field];
  return typeof value === 'string' ? value : 'unknown';
}
