/** The media type of a `Content-Type` value, lower-cased, without parameters. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** `application/json` or a `+json` type such as `application/merge-patch+json`. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  const type = mediaTypeOf(contentType);
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

/** Whether the request has a body at all: a `Content-Length` (even 0) or a `Transfer-Encoding`. */
export function hasBody(headers: { readonly 'content-length'?: string; readonly 'transfer-encoding'?: string }): boolean {
  return headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined;
}
