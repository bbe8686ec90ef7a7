/** A deterministic, key-sorted list of precomputed wire entries, served in pages. */

interface Page<T> {
  items: T[];
  /** Key of the last item when more items follow. */
  nextAfter: string | undefined;
}

type Entries<T> = readonly (readonly [string, T])[];

/**
 * Items of `entries` (sorted by key) strictly after `after`, at most `pageSize`, keeping only
 * those `keep` accepts. The one paging rule of the Dispatcher's lists and of method providers'.
 */
export function pageEntries<T>(
  entries: Entries<T>,
  after: string | undefined,
  pageSize: number,
  keep?: (item: T, key: string) => boolean,
): Page<T> {
  let index = after === undefined ? 0 : firstAfter(entries, after);
  const items: T[] = [];
  let lastKey: string | undefined;
  for (; index < entries.length; index++) {
    const [key, item] = entries[index] as readonly [string, T];
    if (keep && !keep(item, key)) continue;
    if (items.length === pageSize) return { items, nextAfter: lastKey };
    items.push(item);
    lastKey = key;
  }
  return { items, nextAfter: undefined };
}

function firstAfter(entries: Entries<unknown>, after: string): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((entries[mid] as readonly [string, unknown])[0] <= after) low = mid + 1;
    else high = mid;
  }
  return low;
}

export class SortedList<T> {
  readonly #entries: Entries<T>;
  readonly #items: T[];

  constructor(entries: Iterable<readonly [string, T]>) {
    this.#entries = [...entries].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    this.#items = this.#entries.map(([, item]) => item);
  }

  values(): readonly T[] {
    return this.#items;
  }

  get size(): number {
    return this.#items.length;
  }

  /** Items strictly after `after` (by key), at most `pageSize`, keeping only those `keep` accepts. */
  page(after: string | undefined, pageSize: number, keep?: (item: T, key: string) => boolean): Page<T> {
    return pageEntries(this.#entries, after, pageSize, keep);
  }
}
