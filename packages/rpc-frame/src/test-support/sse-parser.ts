/** A minimal SSE parser following the WHATWG event-stream rules, to check what clients would see. */
export interface ParsedSseEvent {
  event: string;
  data: string;
  id: string | undefined;
  retry: number | undefined;
}

export function parseSse(stream: string): { events: ParsedSseEvent[]; comments: string[] } {
  const events: ParsedSseEvent[] = [];
  const comments: string[] = [];
  let data = '';
  let event = '';
  let id: string | undefined;
  let retry: number | undefined;
  for (const line of stream.split(/\r\n|\r|\n/)) {
    if (line === '') {
      if (data !== '') events.push({ event: event || 'message', data: data.slice(0, -1), id, retry });
      data = '';
      event = '';
      continue;
    }
    if (line.startsWith(':')) {
      comments.push(line.slice(1).replace(/^ /, ''));
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') data += `${value}\n`;
    else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) retry = Number(value);
  }
  return { events, comments };
}
