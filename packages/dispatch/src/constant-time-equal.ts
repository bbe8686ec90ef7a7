/**
 * Whether two byte arrays are equal, in time that depends only on their lengths: a signature check
 * must not tell an attacker how many leading bytes matched. No early exit on a differing byte.
 */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= (a[i] as number) ^ (b[i] as number);
  return difference === 0;
}
