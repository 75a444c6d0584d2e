import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { findSqlSites, type SqlSite } from './sql-sites.js';

/** The package's base configuration for extensions, which their own tsconfig.json extends for an editor. */
const BASE_CONFIG = path.resolve(import.meta.dirname, '..', '..', 'tsconfig.extensions.json');

/**
 * The compiler settings extensions are checked with: those of `gantry/tsconfig.extensions.json`,
 * so that `gantry` and an editor agree. It sets no typeRoots: Node's types are found from the
 * runtime's own entry (its `reference types="node"`), wherever the package manager put
 * `@types/node` (a dependency of gantry, so a production install has it too).
 */
function loadOptions(): ts.CompilerOptions {
  const { config, error } = ts.readConfigFile(BASE_CONFIG, (file) => fs.readFileSync(file, 'utf8'));
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, ' '));
  const parsed = ts.convertCompilerOptionsFromJson((config as { compilerOptions: unknown }).compilerOptions, path.dirname(BASE_CONFIG));
  if (parsed.errors.length > 0) throw new Error(parsed.errors.map((e) => ts.flattenDiagnosticMessageText(e.messageText, ' ')).join('; '));
  return parsed.options;
}

const OPTIONS = loadOptions();

/** Gantry's own runtime (the folder above this one), as the compiler names its files. */
const RUNTIME_DIR = `${path.resolve(import.meta.dirname, '..').split(path.sep).join('/')}/`;

/**
 * What `ts.getPreEmitDiagnostics` reports, with the semantic check limited to the project's files (its extensions
 * and the generated code they import): Gantry's runtime sources the extension imports are its own code, typechecked
 * by its own build, and checking their bodies again took most of the check's time. What the project's files use of
 * the runtime is still checked in full through them.
 */
function projectDiagnostics(program: ts.Program): readonly ts.Diagnostic[] {
  // In getPreEmitDiagnostics' order: the global diagnostics are those known before the files are checked.
  const found = [
    ...program.getConfigFileParsingDiagnostics(),
    ...program.getOptionsDiagnostics(),
    ...program.getSyntacticDiagnostics(),
    ...program.getGlobalDiagnostics(),
  ];
  for (const file of program.getSourceFiles()) if (!file.fileName.startsWith(RUNTIME_DIR)) found.push(...program.getSemanticDiagnostics(file));
  return ts.sortAndDeduplicateDiagnostics(found);
}

/** The TypeScript files of `extensions/<ref>/`, sorted; none when the project has no extension. */
export function extensionFiles(extensionsDir: string, ref: string): string[] {
  return tsFiles(path.join(extensionsDir, ref));
}

function tsFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => path.join(dir, name))
    .sort();
}

/** The folders that hold `file`, nearest first. */
function ancestors(file: string): string[] {
  const found: string[] = [];
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) found.push(dir);
  return found;
}


/** The generated module of a project's query types (generated/<ref>/extension-queries.ts), which the generator writes. */
export const QUERY_TYPES_FILE = 'extension-queries.ts';

export interface TypecheckInput {
  readonly extensionsDir: string;
  readonly ref: string;
  /**
   * Files served from memory instead of disk, by absolute path: `gen --check` checks
   * against the code it has just generated, not what generated/ holds.
   */
  readonly overrides?: ReadonlyMap<string, string>;
  /**
   * The project's `generated/<ref>/extension-queries.ts` (absolute): where it exists, each `ctx.sql` template
   * is checked with the parameter and row types it gives for the query's text.
   */
  readonly queryTypes?: string;
  /** The extension's program as `extensionProgram` builds it with these overrides, when the caller has it already. */
  readonly program?: ts.Program;
}

/** A compiler host reading `overrides` before the disk, and handing out `reuse`'s parsed files where it has them. */
function extensionHost(overrides: ReadonlyMap<string, string>, reuse?: ts.Program): ts.CompilerHost {
  const host = ts.createCompilerHost(OPTIONS);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.readFile = (file) => overrides.get(path.resolve(file)) ?? readFile(file);
  host.fileExists = (file) => overrides.has(path.resolve(file)) || fileExists(file);
  // Module resolution asks for the folder first: code generated only in memory (a checkout without generated/<ref>/) must resolve too.
  const folders = new Set([...overrides.keys()].flatMap((file) => ancestors(path.resolve(file))));
  const directoryExists = host.directoryExists?.bind(host);
  host.directoryExists = (dir) => folders.has(path.resolve(dir)) || (directoryExists?.(dir) ?? true);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language, onError, create) => {
    const text = overrides.get(path.resolve(file));
    if (text !== undefined) return ts.createSourceFile(file, text, language);
    return reuse?.getSourceFile(file) ?? getSourceFile(file, language, onError, create);
  };
  return host;
}

/** The program of `extensions/<ref>/` (its files, what they import, `overrides` in place of disk files); null without extensions. */
export function extensionProgram(input: TypecheckInput): { readonly program: ts.Program; readonly files: readonly string[] } | null {
  const files = extensionFiles(input.extensionsDir, input.ref);
  if (files.length === 0) return null;
  return { program: ts.createProgram(files, OPTIONS, extensionHost(input.overrides ?? new Map())), files };
}

/**
 * Typechecks `extensions/<ref>/` (every .ts file under it) against the project's generated
 * types, each query site typed by `queryTypes`. One line per diagnostic, `extensions/<ref>/file.ts:LINE:COL message`,
 * paths from the folder that holds extensions/; empty when it compiles (or there are no extensions).
 */
export function typecheckExtensions(input: TypecheckInput): string[] {
  const built = input.program ? { program: input.program, files: extensionFiles(input.extensionsDir, input.ref) } : extensionProgram(input);
  if (!built) return [];
  const typed = input.queryTypes === undefined ? null : withQueryTypes(built.program, built.files, input.queryTypes, input.overrides ?? new Map());
  const base = path.dirname(input.extensionsDir);
  return projectDiagnostics(typed?.program ?? built.program).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, ' ');
    if (!d.file || d.start === undefined) return message;
    const { file, start } = typed?.original(d.file, d.start) ?? { file: d.file, start: d.start };
    const { line, character } = file.getLineAndCharacterOfPosition(start);
    return `${path.relative(base, file.fileName)}:${line + 1}:${character + 1} ${message}`;
  });
}

interface Insertion {
  readonly at: number;
  readonly text: string;
}

function applyInsertions(text: string, insertions: readonly Insertion[]): string {
  let out = '';
  let from = 0;
  for (const { at, text: inserted } of insertions) {
    out += text.slice(from, at) + inserted;
    from = at;
  }
  return out + text.slice(from);
}

/** A position in the rewritten text as one in the source; inside inserted text, where it was inserted. */
function originalPosition(position: number, insertions: readonly Insertion[]): number {
  let shift = 0;
  for (const { at, text } of insertions) {
    const start = at + shift;
    if (position < start) break;
    if (position < start + text.length) return at;
    shift += text.length;
  }
  return position - shift;
}

/**
 * TypeScript gives a tagged template's strings no literal types (microsoft/TypeScript#33304), so the program is
 * built again with each query site given its types as type arguments, `ctx.sql<QueryRow<"text">,
 * QueryParams<"text">>\`…\`` (the parameters only, after a row type the code wrote itself), and positions in the
 * rewritten files are mapped back to the source. Null when the module does not exist or no site is typed.
 */
function withQueryTypes(
  program: ts.Program,
  files: readonly string[],
  queryTypes: string,
  overrides: ReadonlyMap<string, string>,
): { program: ts.Program; original(file: ts.SourceFile, start: number): { file: ts.SourceFile; start: number } } | null {
  if (!extensionHost(overrides).fileExists(queryTypes)) return null;
  const rewritten = new Map<string, { source: ts.SourceFile; insertions: Insertion[] }>();
  for (const site of findSqlSites(program, files)) {
    if (site.kind !== 'query' || site.typeArguments.count >= 2) continue;
    const source = program.getSourceFile(site.file)!;
    const entry = rewritten.get(source.fileName) ?? { source, insertions: [] };
    entry.insertions.push({ at: site.typeArguments.end, text: typeArgumentsFor(site, queryTypes) });
    rewritten.set(source.fileName, entry);
  }
  if (rewritten.size === 0) return null;
  const texts = new Map([...overrides].map(([file, text]) => [path.resolve(file), text]));
  for (const [file, { source, insertions }] of rewritten) texts.set(path.resolve(file), applyInsertions(source.text, insertions));
  const typed = ts.createProgram(files, OPTIONS, extensionHost(texts, program));
  return {
    program: typed,
    original(file, start) {
      const entry = rewritten.get(file.fileName);
      return entry ? { file: entry.source, start: originalPosition(start, entry.insertions) } : { file, start };
    },
  };
}

/** The type arguments a site is given: both, or the parameters after the row type the code wrote. */
function typeArgumentsFor(site: SqlSite, queryTypes: string): string {
  const module = JSON.stringify(queryTypes.split(path.sep).join('/').replace(/\.ts$/, '.js'));
  const key = JSON.stringify(site.text);
  const params = `import(${module}).QueryParams<${key}>`;
  return site.typeArguments.count === 0 ? `<import(${module}).QueryRow<${key}>, ${params}>` : `, ${params}`;
}
