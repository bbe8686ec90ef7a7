/**
 * Spans leave the machine, so no handle does: a handle is a capability. agentd's own spans name
 * runs by run id, but library spans may carry one in passing (`mcp.resource.uri` of a read of
 * `agent://subagent/<handle>`); every exported string is redacted here, whoever set it.
 */
import type { Attributes, AttributeValue } from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/** `sa_` and 128 bits in base64url (supervisor/ids.ts). */
const HANDLE = /\bsa_[A-Za-z0-9_-]{22}(?![A-Za-z0-9_-])/g;
const REDACTED = '{handle}';

function redactText(text: string): string {
  return text.replace(HANDLE, REDACTED);
}

function redactValue(value: AttributeValue | undefined): AttributeValue | undefined {
  if (typeof value === 'string') return redactText(value);
  if (Array.isArray(value))
    return value.map((item) => (typeof item === 'string' ? redactText(item) : item)) as AttributeValue;
  return value;
}

/** The same attributes, or a redacted copy when one held a handle. */
function redactAttributes(attributes: Attributes): Attributes {
  let copy: Attributes | undefined;
  for (const [key, value] of Object.entries(attributes)) {
    const redacted = redactValue(value);
    if (JSON.stringify(redacted) === JSON.stringify(value)) continue;
    copy ??= { ...attributes };
    copy[key] = redacted;
  }
  return copy ?? attributes;
}

function redactSpan(span: ReadableSpan): ReadableSpan {
  const attributes = redactAttributes(span.attributes);
  const name = redactText(span.name);
  const events = span.events.map((event) => {
    const eventAttributes = event.attributes === undefined ? undefined : redactAttributes(event.attributes);
    return eventAttributes === event.attributes ? event : { ...event, attributes: eventAttributes };
  });
  const changed =
    attributes !== span.attributes || name !== span.name || events.some((e, i) => e !== span.events[i]);
  // A view over the span with the redacted fields on top: everything else reads through.
  return changed
    ? (Object.create(span, {
        attributes: { value: attributes },
        name: { value: name },
        events: { value: events },
      }) as ReadableSpan)
    : span;
}

/** Wraps a span exporter so that what it sends holds no handle. */
export function redactingExporter(inner: SpanExporter): SpanExporter {
  return {
    export: (spans, done) => inner.export(spans.map(redactSpan), done),
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}
