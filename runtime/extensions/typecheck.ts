import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

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

export interface TypecheckInput {
  readonly extensionsDir: string;
  readonly ref: string;
  /**
   * Files served from memory instead of disk, by absolute path: `gen --check` checks
   * against the code it has just generated, not what generated/ holds.
   */
  readonly overrides?: ReadonlyMap<string, string>;
}

/**
 * Typechecks `extensions/<ref>/` (every .ts file under it) against the project's generated
 * types. One line per diagnostic, `extensions/<ref>/file.ts:LINE:COL message`, paths from
 * the folder that holds extensions/; empty when it compiles (or there are no extensions).
 */
export function typecheckExtensions(input: TypecheckInput): string[] {
  const files = extensionFiles(input.extensionsDir, input.ref);
  if (files.length === 0) return [];
  const host = ts.createCompilerHost(OPTIONS);
  const overrides = input.overrides ?? new Map<string, string>();
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
    return text === undefined ? getSourceFile(file, language, onError, create) : ts.createSourceFile(file, text, language);
  };
  const program = ts.createProgram(files, OPTIONS, host);
  const base = path.dirname(input.extensionsDir);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, ' ');
    if (!d.file || d.start === undefined) return message;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${path.relative(base, d.file.fileName)}:${line + 1}:${character + 1} ${message}`;
  });
}
