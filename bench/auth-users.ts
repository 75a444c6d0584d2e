/**
 * The auth scenarios' users: signed up through the API (bcrypt cost 10, confirmed at once: the bench
 * project autoconfirms), each from a client address of its own, as devices behind TRUST_PROXY are.
 */
export const BENCH_PASSWORD = 'bench-secret-1';

export interface BenchUser {
  readonly id: string;
  readonly email: string;
  /** The X-Forwarded-For its requests carry, so that rate-limit counters are per user as in production. */
  readonly ip: string;
}

export function benchIp(i: number): string {
  return `10.26.${Math.floor(i / 250)}.${(i % 250) + 1}`;
}

/** A few at a time: the host hashes passwords in a small worker pool. */
const SIGNUPS_IN_FLIGHT = 4;

export async function signUpUsers(authUrl: string, anonKey: string, count: number): Promise<BenchUser[]> {
  const users: BenchUser[] = [];
  const stamp = Date.now().toString(36);
  for (let start = 0; start < count; start += SIGNUPS_IN_FLIGHT) {
    const batch = Array.from({ length: Math.min(SIGNUPS_IN_FLIGHT, count - start) }, async (_, j) => {
      const i = start + j;
      const email = `bench.${stamp}.${i}@example.com`;
      const ip = benchIp(i);
      const res = await fetch(`${authUrl}/signup`, {
        method: 'POST',
        headers: { apikey: anonKey, 'content-type': 'application/json', 'x-forwarded-for': ip },
        body: JSON.stringify({ email, password: BENCH_PASSWORD }),
      });
      const body = (await res.json()) as { user?: { id?: string } };
      if (res.status !== 200 || typeof body.user?.id !== 'string') throw new Error(`signing up a bench user answered ${res.status} ${JSON.stringify(body)}`);
      return { id: body.user.id, email, ip };
    });
    users.push(...(await Promise.all(batch)));
  }
  return users;
}
