import type { ApiChange, ChangeSubject } from './api-change.js';

/**
 * The compatible way to make a breaking change, in one line: expand (add beside the old), migrate the
 * data and the clients, contract (drop the old) in a later migration, so no release breaks a client
 * still running the previous one. Null for a compatible change.
 */
export function expandContract(change: ApiChange, subject: ChangeSubject): string | null {
  if (change.severity !== 'breaking') return null;
  const column = subject.kind === 'relation' ? subject.column : null;
  const [was, now] = [column?.base?.name ?? 'the column', column?.head?.name ?? 'the column'];
  const relation = subject.kind === 'relation' ? subject.base ?? subject.head : null;
  const fn = subject.kind === 'function' ? subject.base ?? subject.head : null;
  const newType = column?.head?.type.sql ?? 'the new type';
  switch (change.kind) {
    case 'column_renamed':
      return `add column ${now}, backfill it from ${was}, write both (a trigger or the writers), switch clients to ${now}, then drop ${was}`;
    case 'column_removed':
      return `stop every client and extension reading or writing ${was} (and drop its NOT NULL or give it a default), release, then drop it`;
    case 'column_type_changed':
      return `add a column of type ${newType} beside ${was}, backfill it (deciding what happens to values that do not fit), write both, switch clients, then drop ${was}`;
    case 'column_nullability_changed':
      return change.message.startsWith('now NOT NULL')
        ? `backfill the NULLs, make every writer set ${now} (or give it a default), add CHECK (${now} IS NOT NULL) NOT VALID and VALIDATE it, then SET NOT NULL`
        : `release clients that handle null in ${now} first, then drop NOT NULL`;
    case 'column_added':
      return `add ${now} nullable (or with a default), backfill it, switch writers to set it, then SET NOT NULL`;
    case 'column_default_changed':
      return `make every writer send ${now} explicitly, release, then change its default`;
    case 'endpoint_removed':
      return `switch clients off ${relation?.name ?? 'it'} (a view of the old name can stand in meanwhile), release, then drop it`;
    case 'endpoint_renamed':
      return `rename it and create a view with the old name over it (simple views take writes), switch clients to ${subject.kind === 'relation' ? subject.head?.name : 'the new name'}, then drop the view`;
    case 'endpoint_capability_changed':
      return 'switch clients to another endpoint for those writes (or an INSTEAD OF trigger), then change it';
    case 'computed_field_removed':
      return 'switch clients off the computed field, release, then drop its function';
    case 'function_removed':
      return `create the replacement beside ${fn?.name ?? 'it'}, switch clients to it, then drop ${fn?.name ?? 'it'}`;
    case 'function_renamed':
    case 'function_parameter_added':
    case 'function_parameter_removed':
    case 'function_parameter_renamed':
    case 'function_parameter_type_changed':
    case 'function_parameter_default_changed':
    case 'function_return_changed':
      return `create the new signature as a new function (or an overload) beside ${fn?.name ?? 'the old one'}, switch clients to it, then drop the old one`;
    case 'function_volatility_changed':
      return 'switch GET callers to POST, release, then make it volatile';
    case 'key_changed':
      return change.message.startsWith('unique key added')
        ? 'remove the duplicates, CREATE UNIQUE INDEX CONCURRENTLY, make writers avoid repeats, then ADD CONSTRAINT … UNIQUE USING INDEX'
        : 'switch upserts and writes by key to the new key, release, then change the key';
    case 'enum_value_removed':
      return 'stop writing the value, update the rows holding it, then replace the type with one without it';
    case 'enum_removed':
      return 'move its columns and parameters to their new type first (each its own change), then drop the type';
    case 'foreign_key_removed':
    case 'foreign_key_added':
      return 'switch embeds to an explicit !hint (or another path), release, then change the foreign keys';
    default:
      // Who may see what (RLS, policies, grants, SECURITY DEFINER): there is no "both" state to go through.
      return 'release the clients that cope with the new access rules first, then change them';
  }
}
