import fs from 'node:fs/promises';
import path from 'node:path';
import { BundleEvaluationError, evaluateBundle } from '../platform/evaluate-bundle.js';
import type { ProjectDefinition } from '../rest/routes.js';
import { isExtension, type Extension } from './define.js';
import { queryInputProblem } from './query-input.js';
import { typecheckExtensions } from './typecheck.js';

/** An extension the host refuses to load: its compiler diagnostics, or what went wrong evaluating it. */
export class ExtensionLoadError extends Error {
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

/**
 * Loads `extensions/<ref>/index.ts` for a project whose generated definition is loaded:
 * typechecked against the generated types, evaluated as generated code is, its hooks'
 * tables checked against the definition. Null when the project has no extension. Throws
 * ExtensionLoadError: the host then keeps the version of the project it serves.
 */
export async function loadExtension(
  extensionsDir: string,
  definition: ProjectDefinition,
  runtime: Readonly<Record<string, unknown>>,
): Promise<Extension | null> {
  const { ref } = definition;
  const entry = path.join(extensionsDir, ref, 'index.ts');
  if (!(await fs.stat(entry).then(() => true, () => false))) return null;
  const problems = typecheckExtensions({ extensionsDir, ref });
  if (problems.length > 0) throw new ExtensionLoadError(ref, `extensions/${ref} does not typecheck:\n${problems.join('\n')}`, problems);
  let exported: unknown;
  try {
    exported = (await evaluateBundle(entry, runtime, `extensions/${ref}`)).default;
  } catch (error) {
    const at = error instanceof BundleEvaluationError && error.location
      ? ` (at ${path.relative(path.dirname(extensionsDir), error.location.file)}:${error.location.line}:${error.location.column})`
      : '';
    throw new ExtensionLoadError(ref, `extensions/${ref} failed to load: ${(error as Error).message}${at}`);
  }
  if (!isExtension(exported)) {
    throw new ExtensionLoadError(ref, `extensions/${ref}/index.ts must export default defineExtension<Database>()({ ... })`);
  }
  const unknown = Object.keys(exported.tables).filter((name) => !definition.project.tables[`${exported.schema}.${name}`]);
  if (unknown.length > 0) throw new ExtensionLoadError(ref, `extensions/${ref} has hooks for tables the project does not have: ${unknown.join(', ')}`);
  for (const [name, route] of Object.entries(exported.routes)) {
    const problem = route.method === 'GET' ? queryInputProblem(route.input) : null;
    if (problem !== null) throw new ExtensionLoadError(ref, `extensions/${ref}: the GET route "${name}" cannot be called: ${problem}`);
  }
  return exported;
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
    const exported = (await evaluateBundle(path.join(extensionsDir, ref, 'index.ts'), runtime, `extensions/${ref}`)).default;
    return isExtension(exported) ? { schema: exported.schema, tables: new Set(Object.keys(exported.tables)) } : null;
  } catch {
    return null;
  }
}
