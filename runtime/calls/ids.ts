/** Public ids are a type prefix and the row's UUID without dashes: `call_0f3c…`, `we_…`, `dlv_…`, `chk_…`. */
export type IdPrefix = 'call' | 'we' | 'dlv' | 'chk';

export function publicId(prefix: IdPrefix, uuid: string): string {
  return `${prefix}_${uuid.replace(/-/g, '')}`;
}

/** The UUID behind a public id, or null when the text is not an id of that type. */
export function parsePublicId(prefix: IdPrefix, text: string): string | null {
  const match = new RegExp(`^${prefix}_([0-9a-f]{32})$`).exec(text);
  if (!match) return null;
  const hex = match[1]!;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
