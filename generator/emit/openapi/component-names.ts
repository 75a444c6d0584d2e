import { createHash } from 'node:crypto';

/** What OpenAPI allows as a component key. */
const componentKey = /^[A-Za-z0-9_-]+$/;

/**
 * Component keys for database names. OpenAPI keys allow only `[A-Za-z0-9._-]`; a name
 * of that alphabet (without `.`, which the suffixes `.Insert`/`.Update` use) is kept,
 * anything else is folded and suffixed with a hash of the exact name. So is a name of a
 * member of Object.prototype: Swagger UI looks models up in plain JavaScript objects, and
 * the docs page shows no model named `__proto__` or `constructor` (the same trap as
 * tags, see tag-names.ts). Allocation is in the order asked, so the caller asks in model
 * order for stable keys.
 */
export class ComponentNames {
  private readonly used = new Set<string>();
  private readonly byName = new Map<string, string>();

  key(name: string): string {
    const known = this.byName.get(name);
    if (known !== undefined) return known;
    const stem = componentKey.test(name) && !Object.hasOwn(Object.prototype, name) ? name : `${name.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 48)}-${hash(name)}`;
    let candidate = stem;
    for (let n = 2; this.used.has(candidate); n++) candidate = `${stem}-${n}`;
    this.used.add(candidate);
    this.byName.set(name, candidate);
    return candidate;
  }
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}
