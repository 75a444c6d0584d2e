import type { PolicyModel, RelationModel } from '../../model/types.js';

/** The SQL commands an HTTP method of the data API runs. */
export type Command = 'SELECT' | 'INSERT' | 'UPDATE' | 'DELETE';

function roleList(roles: readonly string[]): string {
  if (roles.length === 0 || roles.includes('public')) return 'every role';
  return roles.map((role) => `\`${role}\``).join(', ');
}

function commandWords(command: PolicyModel['command']): string {
  return command === 'ALL' ? 'all commands (SELECT, INSERT, UPDATE, DELETE)' : command;
}

/** One policy in plain words: who, for which command, and the conditions as the database states them. */
export function describePolicy(policy: PolicyModel): string {
  const parts = [
    `**${policy.name}** (${policy.permissive ? 'permissive' : 'restrictive'}) for ${commandWords(policy.command)}, applies to ${roleList(policy.roles)}`,
  ];
  if (policy.using !== null) parts.push(`rows are visible or affected only when \`${policy.using}\``);
  if (policy.withCheck !== null) parts.push(`new or changed rows must satisfy \`${policy.withCheck}\``);
  return `${parts.join('; ')}.`;
}

function appliesTo(policy: PolicyModel, command: Command): boolean {
  return policy.command === 'ALL' || policy.command === command;
}

/**
 * The row-level security of a relation, in words, for the commands given (all when
 * none): whether RLS is on and each policy that applies. `service_role` bypasses it.
 */
export function describeRls(relation: RelationModel, commands: readonly Command[] = []): string {
  if (relation.kind !== 'table') {
    return 'Row-level security: a view has no policies of its own; the policies of the tables it reads apply as the view owner sees them.';
  }
  if (!relation.rls.enabled) {
    return 'Row-level security is **off**: every role the grants allow reads and writes every row.';
  }
  const relevant = relation.policies.filter((p) => commands.length === 0 || commands.some((c) => appliesTo(p, c)));
  const header = 'Row-level security is **on** (`service_role` bypasses it).';
  if (relevant.length === 0) {
    const scope = commands.length === 0 ? 'No policy exists' : `No policy covers ${commands.join('/')}`;
    return `${header} ${scope}: for \`anon\` and \`authenticated\` reads return no rows, updates and deletes change nothing and inserts are refused (403).`;
  }
  return [`${header} Policies:`, ...relevant.map((p) => `- ${describePolicy(p)}`)].join('\n');
}
