/** A deterministic, key-sorted list of precomputed wire entries, served in pages. */

interface Page<T> {
  items: T[];
  /** Key of the last item when more items follow. */
  nextAfter: string | undefined;
}

export class SortedList<T> {
  readonly #keys: string[];
  readonly #items: T[];

  constructor(entries: Iterable<readonly [string, T]>) {
    const sorted = [...entries].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    this.#keys = sorted.map(([key]) => key);
    this.#items = sorted.map(([, item]) => item);
  }

  values(): readonly T[] {
    return this.#items;
  }

  get size(): number {
    return this.#items.length;
  }

  /** Items strictly after `after` (by key), at most `pageSize`, keeping only those `keep` accepts. */
  page(after: string | undefined, pageSize: number, keep?: (item: T, key: string) => boolean): Page<T> {
    let index = after === undefined ? 0 : this.#firstAfter(after);
    const items: T[] = [];
    let lastKey: string | undefined;
    for (; index < this.#items.length; index++) {
      const item = this.#items[index] as T;
      const key = this.#keys[index] as string;
      if (keep && !keep(item, key)) continue;
      if (items.length === pageSize) return { items, nextAfter: lastKey };
      items.push(item);
      lastKey = key;
    }
    return { items, nextAfter: undefined };
  }

  #firstAfter(after: string): number {
    let low = 0;
    let high = this.#keys.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.#keys[mid] as string) <= after) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
