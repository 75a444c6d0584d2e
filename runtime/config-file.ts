import fs from 'node:fs';
import path from 'node:path';
import { parse, TomlError } from 'smol-toml';
import { ConfigError } from './config-error.js';

/**
 * `gantry.toml`: the file a team commits at its repository's root, naming its projects, its folders
 * and each project's settings. TOML because teams coming from the Supabase CLI know its
 * `supabase/config.toml`, it holds comments (a reason beside a setting) and it diffs line by line;
 * smol-toml parses it (TOML 1.0, no dependencies).
 */
export const CONFIG_FILE_NAME = 'gantry.toml';

/** What may stand as a setting's value in the file: what `project config --set KEY=VALUE` takes, typed. */
export type FileSettingValue = string | number | boolean;

export interface ProjectDeclaration {
  readonly ref: string;
  /** Setting key (as `project config --set` names it) -> value, in the file's order. */
  readonly settings: ReadonlyMap<string, FileSettingValue>;
}

export interface ConfigFile {
  /** The file's absolute path; its folder is the project root. */
  readonly path: string;
  /** Folders relative to the root, when the file names them. */
  readonly paths: { readonly generated?: string; readonly migrations?: string; readonly extensions?: string };
  /** The declared projects, sorted by ref. */
  readonly projects: readonly ProjectDeclaration[];
}

const REF = /^[a-z][a-z0-9_]{2,39}$/;
const PATH_KEYS = ['generated', 'migrations', 'extensions'] as const;
const TOP_KEYS = new Set(['paths', 'projects']);
const PROJECT_KEYS = new Set(['settings']);

/** The nearest folder from `start` upwards that holds `gantry.toml`, as git finds `.git`; null when none does. */
export function findConfigFile(start: string): string | null {
  for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, CONFIG_FILE_NAME);
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return null;
  }
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function unknownKeys(table: Record<string, unknown>, known: ReadonlySet<string>, where: string, file: string): void {
  const extra = Object.keys(table).filter((key) => !known.has(key));
  if (extra.length > 0) throw new ConfigError(`${file}: unknown key ${extra.map((k) => JSON.stringify(k)).join(', ')} in ${where} (known: ${[...known].join(', ')})`);
}

/**
 * `[projects.<ref>.settings]` as flat keys: `auth.autoconfirm = true` (TOML's dotted keys make nested
 * tables) and `"auth.autoconfirm" = true` (one quoted key) both give `auth.autoconfirm`. A list of
 * strings is the comma-separated form the CLI takes (`"api.schemas" = ["public", "extra"]`).
 */
function flattenSettings(table: Record<string, unknown>, prefix: string, out: Map<string, FileSettingValue>, where: string, file: string): void {
  for (const [key, value] of Object.entries(table)) {
    const name = prefix === '' ? key : `${prefix}.${key}`;
    if (isTable(value)) {
      flattenSettings(value, name, out, where, file);
      continue;
    }
    if (out.has(name)) throw new ConfigError(`${file}: setting "${name}" is given twice in ${where}`);
    if (typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) {
      out.set(name, value);
    } else if (typeof value === 'bigint') {
      out.set(name, value.toString());
    } else if (Array.isArray(value) && value.every((item) => typeof item === 'string')) {
      out.set(name, value.join(','));
    } else {
      throw new ConfigError(`${file}: setting "${name}" in ${where} must be a string, a number, a boolean or a list of strings`);
    }
  }
}

/** Parses and checks the text of a `gantry.toml`; `file` names it in errors. Pure. */
export function parseConfigFile(text: string, file: string): ConfigFile {
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (error) {
    const where = error instanceof TomlError ? `line ${error.line}, column ${error.column}: ` : '';
    throw new ConfigError(`${file}: not valid TOML: ${where}${(error as Error).message.split('\n')[0]}`);
  }
  unknownKeys(doc, TOP_KEYS, 'the top level', file);
  const paths: Record<string, string> = {};
  if (doc.paths !== undefined) {
    if (!isTable(doc.paths)) throw new ConfigError(`${file}: [paths] must be a table`);
    unknownKeys(doc.paths, new Set(PATH_KEYS), '[paths]', file);
    for (const key of PATH_KEYS) {
      const value = doc.paths[key];
      if (value === undefined) continue;
      if (typeof value !== 'string' || value.trim() === '' || value.includes('\0')) throw new ConfigError(`${file}: paths.${key} must be a non-empty folder path`);
      paths[key] = value;
    }
  }
  const projects: ProjectDeclaration[] = [];
  if (doc.projects !== undefined) {
    if (!isTable(doc.projects)) throw new ConfigError(`${file}: [projects] must hold one table per project, e.g. [projects.myapp]`);
    for (const [ref, body] of Object.entries(doc.projects)) {
      if (!REF.test(ref)) throw new ConfigError(`${file}: project ref ${JSON.stringify(ref.slice(0, 60))} must match ^[a-z][a-z0-9_]{2,39}$`);
      if (!isTable(body)) throw new ConfigError(`${file}: projects.${ref} must be a table ([projects.${ref}])`);
      unknownKeys(body, PROJECT_KEYS, `[projects.${ref}]`, file);
      const settings = new Map<string, FileSettingValue>();
      if (body.settings !== undefined) {
        if (!isTable(body.settings)) throw new ConfigError(`${file}: projects.${ref}.settings must be a table ([projects.${ref}.settings])`);
        flattenSettings(body.settings, '', settings, `[projects.${ref}.settings]`, file);
      }
      projects.push({ ref, settings });
    }
  }
  projects.sort((a, b) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
  return { path: file, paths, projects };
}

/** Reads and parses the file at `file`. */
export function readConfigFile(file: string): ConfigFile {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return parseConfigFile(text, file);
}
