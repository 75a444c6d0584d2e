import fs from 'node:fs/promises';
import type { Logger } from 'pino';
import path from 'node:path';
import { BundleEvaluationError, evaluateBundle, type SourceLocation } from '../platform/evaluate-bundle.js';
import type { ProjectDefinition } from '../rest/routes.js';
import { isExtension, type Extension } from './define.js';
import { queryInputProblem } from './query-input.js';
import { QUERY_TYPES_FILE, typecheckExtensions } from './typecheck.js';
import { CodedError } from '../coded-error.js';

/** An extension the host refuses to load: its compiler diagnostics, or what went wrong evaluating it. */
export class ExtensionLoadError extends CodedError {
  readonly code = 'extension_not_loadable';

  constructor(
    readonly ref: string,
    message: string,
    readonly problems: readonly string[] = [],
  ) {
    super(message);
    this.name = 'ExtensionLoadError';
  }
}

/** An extension as loaded, and where in its sources an error it threw was thrown (`extensions/<ref>/index.ts:12:5`), for the log. */
export interface ExtensionModule {
  readonly extension: Extension;
  locate(thrown: unknown): string | null;
}

/** A project's loaded extension and where its failures are logged. */
export interface LoadedExtension extends ExtensionModule {
  readonly log: Logger;
}

function site(extensionsDir: string, location: SourceLocation): string {
  return `${path.relative(path.dirname(extensionsDir), location.file)}:${location.line}:${location.column}`;
}

/**
 * Loads `extensions/<ref>/index.ts` for a project whose generated definition is loaded:
 * typechecked against the generated types (of `generatedDir`, its queries' too), evaluated as generated code is, its hooks'
 * tables checked against the definition. Null when the project has no extension. Throws
 * ExtensionLoadError: the host then keeps the version of the project it serves.
 */
export async function loadExtension(
  extensionsDir: string,
  definition: ProjectDefinition,
  runtime: Readonly<Record<string, unknown>>,
  generatedDir: string,
): Promise<ExtensionModule | null> {
  const { ref } = definition;
  const entry = path.join(extensionsDir, ref, 'index.ts');
  if (!(await fs.stat(entry).then(() => true, () => false))) return null;
  const problems = typecheckExtensions({ extensionsDir, ref, queryTypes: path.join(generatedDir, ref, QUERY_TYPES_FILE) });
  if (problems.length > 0) throw new ExtensionLoadError(ref, `extensions/${ref} does not typecheck:\n${problems.join('\n')}`, problems);
  let bundle: Awaited<ReturnType<typeof evaluateBundle>>;
  try {
    bundle = await evaluateBundle(entry, runtime, `extensions/${ref}`);
  } catch (error) {
    const at = error instanceof BundleEvaluationError && error.location ? ` (at ${site(extensionsDir, error.location)})` : '';
    throw new ExtensionLoadError(ref, `extensions/${ref} failed to load: ${(error as Error).message}${at}`);
  }
  const exported = bundle.exports.default;
  if (!isExtension(exported)) {
    throw new ExtensionLoadError(ref, `extensions/${ref}/index.ts must export default defineExtension<Database>()({ ... })`);
  }
  const unknown = Object.keys(exported.tables).filter((name) => !definition.project.tables[`${exported.schema}.${name}`]);
  if (unknown.length > 0) throw new ExtensionLoadError(ref, `extensions/${ref} has hooks for tables the project does not have: ${unknown.join(', ')}`);
  for (const [name, route] of Object.entries(exported.routes)) {
    const problem = route.method === 'GET' ? queryInputProblem(route.input) : null;
    if (problem !== null) throw new ExtensionLoadError(ref, `extensions/${ref}: the GET route "${name}" cannot be called: ${problem}`);
  }
  return {
    extension: exported,
    locate: (thrown) => {
      const location = bundle.locate(thrown);
      return location && site(extensionsDir, location);
    },
  };
}

/**
 * The tables an extension that did not load declares hooks for, read by evaluating it regardless of the
 * compiler's verdict (types do not change what the module exports); null when even that fails.
 */
export async function declaredHookTables(
  extensionsDir: string,
  ref: string,
  runtime: Readonly<Record<string, unknown>>,
): Promise<{ readonly schema: string; readonly tables: ReadonlySet<string> } | null> {
  try {
    const exported = (await evaluateBundle(path.join(extensionsDir, ref, 'index.ts'), runtime, `extensions/${ref}`)).exports.default;
    return isExtension(exported) ? { schema: exported.schema, tables: new Set(Object.keys(exported.tables)) } : null;
  } catch {
    return null;
  }
}
