import fs from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import type ts from 'typescript';
import { taskClient } from '../runtime/db/pool-errors.js';
import { isExtension } from '../runtime/extensions/define.js';
import { functionPaths } from '../runtime/extensions/openapi.js';
import { evaluateBundle } from '../runtime/platform/evaluate-bundle.js';
import * as runtime from '../runtime/index.js';
import type { CodeSync } from '../runtime/host/project-directory.js';
import { generatedFingerprint } from '../runtime/generated-files.js';
import type { Platform, ProjectRecord } from '../runtime/platform/platform.js';
import { emitProject } from './emit/project.js';
import type { SqlCheck } from './extension-sql/check-queries.js';
import { withQueryTypes } from './extension-sql/query-types.js';
import { tracksFilesUnder } from './git/tracked.js';
import { introspectProject } from './introspect/introspect.js';
import { schemaFingerprint } from './model/fingerprint.js';
import { writeGenerated, type WriteResult } from './write.js';

/**
 * Introspects the schemas the project exposes (its `api.schemas` setting) and writes
 * (or, with check, compares) `generated/<ref>/`. With `unlessCurrent`, stops after the
 * introspection when the project's schema.json was generated from this very schema: the
 * host calls it before every load, and emitting is the larger half of the work. With
 * `inTransaction`, `client` is inside a transaction of the caller's, whose schema it reads.
 */
export async function generateProject(
  platform: Platform,
  record: ProjectRecord,
  options: { check?: boolean; unlessCurrent?: boolean; client?: pg.ClientBase; inTransaction?: boolean } = {},
): Promise<WriteResult & { readonly files?: ReadonlyMap<string, string>; readonly fingerprint: string; readonly sql?: SqlCheck; readonly program?: ts.Program | null }> {
  const dir = path.join(platform.config.generatedDir, record.ref);
  // A host passes a connection it already holds (one of its budget's) rather than opening another.
  const own = options.client ? null : taskClient(platform.projectUrl(record));
  await own?.connect();
  const client = options.client ?? own!;
  try {
    const model = await introspectProject(client, { schemas: record.settings['api.schemas'], inTransaction: options.inTransaction });
    const fingerprint = schemaFingerprint(model);
    if (options.unlessCurrent && (await generatedFingerprint(platform.config.generatedDir, record.ref)) === fingerprint) {
      return { changed: [], removed: [], diff: '', fingerprint };
    }
    const emitted = emitProject(model, { ref: record.ref, functionPaths: await extensionFunctionPaths(platform.config.extensionsDir, record.ref) });
    const { files, sql, program } = await withQueryTypes(client, emitted, {
      ref: record.ref,
      extensionsDir: platform.config.extensionsDir,
      generatedDir: platform.config.generatedDir,
      model,
      extraSearchPath: record.settings['api.extra_search_path'],
      inTransaction: options.inTransaction ?? false,
    });
    return { ...(await writeGenerated(dir, files, { check: options.check ?? false })), files, fingerprint, sql, program };
  } finally {
    await own?.end();
  }
}

/** The fingerprint of a project database's schema as its API exposes it: what `project move` compares between the live and the rebuilt database. */
export async function liveFingerprint(client: pg.ClientBase, record: ProjectRecord): Promise<string> {
  return schemaFingerprint(await introspectProject(client, { schemas: record.settings['api.schemas'] }));
}

/** Said when a project's committed code was not generated from its database's schema and was left as it is. */
export type StaleCodeNotice = (ref: string, message: string) => void;

/**
 * How a host keeps projects' code in line with their schemas, the generator's side of it: before it loads a
 * project, code written only where it is not current (over the connection to the project database the host
 * holds), and the fingerprint of the code on disk. Code that git tracks is the team's reviewed code and is
 * never rewritten by a host: a stale one is served as committed and `stale` says which command fixes it
 * (a deploy that starts before `migrate` meets this).
 */
export function codeSync(platform: Platform, stale: StaleCodeNotice = () => {}): CodeSync {
  const { generatedDir } = platform.config;
  return {
    sync: async (record, client) => {
      // Compared first, written only after: git is asked only about code that would change.
      const result = await generateProject(platform, record, { unlessCurrent: true, client, check: true });
      if (result.changed.length + result.removed.length === 0) return result.fingerprint;
      const dir = path.join(generatedDir, record.ref);
      if (!(await tracksFilesUnder(dir))) {
        await writeGenerated(dir, result.files!, { check: false });
        return result.fingerprint;
      }
      stale(
        record.ref,
        `generated/${record.ref}/ is tracked by git and was not generated from the schema of this database (${result.changed.length + result.removed.length} file(s) differ): ` +
          `served as committed, not rewritten. Run \`npx gantry migrate ${record.ref}\` when migrations are pending (a deploy migrates before it starts the new version), ` +
          `or \`npx gantry gen ${record.ref}\` to take a schema changed outside migrations into the code`,
      );
      return (await generatedFingerprint(generatedDir, record.ref)) ?? result.fingerprint;
    },
    onDisk: (ref) => generatedFingerprint(generatedDir, ref),
  };
}

/**
 * The OpenAPI paths of the custom routes of `extensions/<ref>/`, read by evaluating it as the host does; none when
 * there is no extension or it does not load (`gen` reports why, from the typecheck that follows it).
 */
export async function extensionFunctionPaths(extensionsDir: string, ref: string): Promise<Record<string, unknown>> {
  const entry = path.join(extensionsDir, ref, 'index.ts');
  if (!(await fs.stat(entry).then(() => true, () => false))) return {};
  const exported = await evaluateBundle(entry, runtime, `extensions/${ref}`).then((bundle) => bundle.exports.default, () => null);
  return isExtension(exported) ? functionPaths(exported) : {};
}
