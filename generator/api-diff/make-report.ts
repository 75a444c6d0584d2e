import fs from 'node:fs/promises';
import type pg from 'pg';
import { apiReport, type ApiReport, type ReportedChange } from './api-report.js';
import { acceptBreaking, readBreakingMarkers, type ReportWarning } from './breaking-marker.js';
import type { ExtensionCode, SourceFile } from './code-references.js';
import { dataQuestions, type DataQuestion } from './data-checks.js';
import { answerQuestions, noDatabase } from './data-effects.js';
import { diffApiSubjects, type ApiDescription } from './diff-api.js';
import { changeEndpoints } from './endpoints.js';
import { expandContract } from './expand-contract.js';
import { lintMigrations, type MigrationFile } from './migration-lint.js';
import { referencesTo } from './references.js';
import { declaredRenames } from './renames.js';
import { changedTypes } from './type-changes.js';

export interface ReportInput {
  readonly ref: string;
  /** Labels for the two sides: `HEAD`, `working tree`, `before migrate`… */
  readonly baseLabel: string;
  readonly headLabel: string;
  readonly base: ApiDescription;
  readonly head: ApiDescription;
  /** The migration files that made the change: new since the base, or just applied, in version order. */
  readonly migrationFiles: readonly MigrationFile[];
  /** The project's own code, `extensions/<ref>/*.ts`, named as the report names them. */
  readonly extensionFiles?: readonly SourceFile[];
  /** A database at the base's schema to count the rows a change affects, and how the report names it. */
  readonly database?: { readonly client: pg.ClientBase; readonly label: string } | null;
}

const noCode: ExtensionCode = { schema: 'public', sites: [] };

/** What the report says of the changes from base to head, before any database is asked. */
export interface DescribedChanges {
  readonly changes: readonly ReportedChange[];
  /** Each change's questions about the rows (its `data` says not counted until they are answered). */
  readonly questions: readonly (readonly DataQuestion[])[];
  readonly warnings: readonly ReportWarning[];
}

/**
 * The API changes from base to head, each with its endpoints, generated types, the extension code that
 * uses it, its expand/contract sequence and its acceptance by a `-- gantry:breaking` marker of
 * `migrations` (new since the base, in version order, also where renames are declared). Pure.
 */
export function describeChanges(
  base: ApiDescription,
  head: ApiDescription,
  migrations: readonly { readonly name: string; readonly sql: string }[],
  code: ExtensionCode = noCode,
): DescribedChanges {
  const defaultSchema = head.schemas[0] ?? base.schemas[0] ?? 'public';
  const subjects = diffApiSubjects(base, head, declaredRenames(migrations.map((m) => m.sql), 'public'));
  const marked = migrations.map((m) => readBreakingMarkers(m.name, m.sql));
  const { accepted, warnings } = acceptBreaking(subjects.map((s) => s.change), marked.flatMap((m) => m.markers), defaultSchema);
  const questions = subjects.map(({ change, subject }) => dataQuestions(change, subject));
  const changes = subjects.map(({ change, subject }, i): ReportedChange => {
    const references = referencesTo(subject, code);
    return {
      ...change,
      endpoints: [...new Set([...changeEndpoints(subject, base, head), ...references.flatMap((r) => (r.endpoint === null ? [] : [r.endpoint]))])],
      types: changedTypes(subject, base, head),
      references,
      data: questions[i]!.map((q) => ({ description: q.description, rows: null, note: noDatabase })),
      expandContract: expandContract(change, subject),
      accepted: accepted[i] ?? null,
    };
  });
  return { changes, questions, warnings: [...marked.flatMap((m) => m.warnings), ...warnings] };
}

/** describeChanges on the input's files, the rows counted where there is a database, with squawk's findings on the migrations. */
export async function makeApiReport(input: ReportInput): Promise<ApiReport> {
  const migrations = await Promise.all(input.migrationFiles.map(async (file) => ({ name: file.name, sql: await fs.readFile(file.path, 'utf8') })));
  const files = input.extensionFiles ?? [];
  // TypeScript's parser is loaded only for a project that has extension code: loading it costs a CLI run a second or more.
  const code = files.length === 0 ? noCode : (await import('./code-references.js')).scanExtensionCode(files);
  const described = describeChanges(input.base, input.head, migrations, code);
  const changes = input.database ? await withCounts(described, input.database.client) : described.changes;
  const findings = await lintMigrations(input.migrationFiles);
  return apiReport(input.ref, input.baseLabel, input.headLabel, changes, { files: input.migrationFiles.map((file) => file.name), findings }, {
    database: input.database?.label ?? null,
    warnings: described.warnings,
  });
}

async function withCounts(described: DescribedChanges, client: pg.ClientBase): Promise<ReportedChange[]> {
  const answers = await answerQuestions(client, described.questions.flat());
  let next = 0;
  return described.changes.map((change, i) => ({ ...change, data: described.questions[i]!.map(() => answers[next++]!) }));
}
