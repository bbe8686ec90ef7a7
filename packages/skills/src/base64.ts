/** Standard base64 (MCP `blob` contents) through `btoa`, which every runtime skills serve on has. */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  // Chunked: spreading a whole 16 MiB file into one call would overflow the argument limit.
  for (let at = 0; at < bytes.length; at += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  return btoa(binary);
}
