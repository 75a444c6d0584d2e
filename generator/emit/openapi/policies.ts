import type { PolicyModel, RelationModel } from '../../model/types.js';

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

/**
 * The row-level security of a relation, in words: whether RLS is on and each policy. `service_role` bypasses it.
 */
export function describeRls(relation: RelationModel): string {
  if (relation.kind !== 'table') {
    return 'Row-level security: a view has no policies of its own; the policies of the tables it reads apply as the view owner sees them.';
  }
  if (!relation.rls.enabled) {
    return 'Row-level security is **off**: every role the grants allow reads and writes every row.';
  }
  const header = 'Row-level security is **on** (`service_role` bypasses it).';
  if (relation.policies.length === 0) {
    return `${header} No policy exists: for \`anon\` and \`authenticated\` reads return no rows, updates and deletes change nothing and inserts are refused (403).`;
  }
  return [`${header} Policies:`, ...relation.policies.map((p) => `- ${describePolicy(p)}`)].join('\n');
}
