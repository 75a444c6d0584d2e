/** What a stream of requests saw: every status, and the rows each acknowledged write returned. */
export interface Observed {
  readonly statuses: Map<number, number>;
  /** Bodies of answers that were neither a success nor a 503 from an unreachable database. */
  readonly unexpected: string[];
  readonly acknowledged: string[];
  readonly unavailable: { readonly code: unknown; readonly retryAfter: string | null }[];
}

export function observe(): Observed {
  return { statuses: new Map(), unexpected: [], acknowledged: [], unavailable: [] };
}

/** One request of the stream, recorded: 2xx, or 503 with its code and Retry-After; anything else is unexpected. */
export async function record(seen: Observed, request: () => Promise<Response>, acknowledge?: (body: unknown) => string): Promise<void> {
  let res: Response;
  try {
    res = await request();
  } catch (error) {
    seen.unexpected.push(`no answer: ${(error as Error).message}`);
    return;
  }
  seen.statuses.set(res.status, (seen.statuses.get(res.status) ?? 0) + 1);
  const text = await res.text();
  if (res.status === 503) {
    seen.unavailable.push({ code: (JSON.parse(text) as { code?: unknown }).code, retryAfter: res.headers.get('retry-after') });
  } else if (res.status >= 300) {
    seen.unexpected.push(`${res.status} ${text}`);
  } else if (acknowledge) {
    seen.acknowledged.push(acknowledge(JSON.parse(text)));
  }
}
