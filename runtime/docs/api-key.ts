import { ApiError } from '../rest/errors.js';
import { authenticate } from '../rest/credentials.js';

/**
 * The key the document and the docs page are opened with: `?apikey=` (how links to
 * them carry it) or the `apikey` header, a key or token of this project. Missing or
 * invalid: 401 in the data API's error shape. Returns the key, which the page passes
 * on to "try it" requests, and its role.
 */
export function requireDocsKey(query: unknown, header: string | undefined, secret: string): { readonly key: string; readonly role: string } {
  const fromQuery = typeof query === 'string' && query !== '' ? query : null;
  const key = header ?? fromQuery;
  if (key === null || key === '') {
    throw new ApiError(401, 'PGRST302', 'No API key found in request', null, 'Open this URL with ?apikey=<anon key>.');
  }
  return { key, role: authenticate({ apikey: key }, secret, null).role };
}
