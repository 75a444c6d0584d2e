/**
 * Locale-free ordering. Generated output must not depend on the machine's locale, so
 * every sort in the generator compares UTF-16 code units, never `localeCompare`.
 */

export function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Compares tuples of strings element by element; a shorter prefix sorts first. */
export function compareTuples(a: readonly string[], b: readonly string[]): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const order = compareCodePoints(a[i] as string, b[i] as string);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

/** A sorted copy, ordered by the key tuple each item maps to. */
export function sortByKey<T>(items: readonly T[], key: (item: T) => readonly string[]): T[] {
  return items
    .map((item) => ({ item, key: key(item) }))
    .sort((x, y) => compareTuples(x.key, y.key))
    .map(({ item }) => item);
}
