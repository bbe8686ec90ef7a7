/** Key-sorted `[key, item]` entries: what `ProviderHost.page` serves in pages. */
export type SortedEntries<T> = readonly (readonly [string, T])[];

/** `entries` sorted by key in code-unit order (the order cursors resume in). */
export function sortedByKey<T>(entries: Iterable<readonly [string, T]>): SortedEntries<T> {
  return [...entries].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}
