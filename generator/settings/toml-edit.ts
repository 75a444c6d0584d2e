import { parseConfigFile, type ConfigFile, type FileSettingValue } from '../../runtime/config-file.js';
import { CliError } from '../command-error.js';

/**
 * Writing one setting into `[projects.<ref>.settings]` of a gantry.toml as a small text edit, so the file keeps its
 * comments, its order and its layout: the key's line replaced, else a line appended to the table (the table added
 * after the project's own when there is none). The result is parsed again and must hold exactly the change.
 */

/** A value as TOML writes it; a JSON string is a valid TOML basic string. */
export function tomlValue(value: FileSettingValue): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/** The line `"key" = value`. */
export function settingLine(key: string, value: FileSettingValue): string {
  return `${JSON.stringify(key)} = ${tomlValue(value)}`;
}

const KEY_PART = String.raw`(?:"(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)`;
const KEY_LINE = new RegExp(String.raw`^\s*(${KEY_PART}(?:\s*\.\s*${KEY_PART})*)\s*=`);
const HEADER = /^\s*\[\[?\s*([^\]]*?)\s*\]\]?\s*(#.*)?$/;

/** A dotted key's parts without their quotes, joined with dots: `auth.autoconfirm`, `"auth.autoconfirm"` and `auth."autoconfirm"` are one name. */
function flatKey(text: string): string {
  const parts = text.match(new RegExp(KEY_PART, 'g')) ?? [];
  return parts.map((part) => (part.startsWith('"') ? (JSON.parse(part) as string) : part.startsWith("'") ? part.slice(1, -1) : part)).join('.');
}

/** The table a header line opens (`projects.demo.settings`), null for any other line. */
function headerOf(line: string): string | null {
  const match = HEADER.exec(line);
  return match ? flatKey(match[1] as string) : null;
}

/** `text` with `key` set to `value` in `[projects.<ref>.settings]`; throws `config_file_edit` (with the line to add) when the edit cannot be made safely. */
export function setSettingInText(text: string, file: string, ref: string, key: string, value: FileSettingValue): string {
  const line = settingLine(key, value);
  const table = `projects.${ref}.settings`;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((l) => headerOf(l) === table);
  let next: string[];
  if (start >= 0) {
    let end = lines.findIndex((l, i) => i > start && headerOf(l) !== null);
    if (end < 0) end = lines.length;
    const existing = lines.findIndex((l, i) => i > start && i < end && KEY_LINE.test(l) && flatKey(KEY_LINE.exec(l)![1]!) === key);
    if (existing >= 0) {
      next = [...lines.slice(0, existing), line, ...lines.slice(existing + 1)];
    } else {
      let last = end;
      while (last - 1 > start && lines[last - 1]!.trim() === '') last--;
      next = [...lines.slice(0, last), line, ...lines.slice(last)];
    }
  } else {
    const project = lines.findIndex((l) => headerOf(l) === `projects.${ref}`);
    let at = lines.length;
    if (project >= 0) {
      const end = lines.findIndex((l, i) => i > project && headerOf(l) !== null);
      at = end < 0 ? lines.length : end;
    }
    while (at > 0 && lines[at - 1]!.trim() === '') at--;
    const rest = lines.slice(at);
    next = [...lines.slice(0, at), ...(at > 0 ? [''] : []), `[${table}]`, line, ...(rest.length > 0 && rest[0]!.trim() !== '' ? [''] : []), ...rest];
  }
  const result = next.join(eol) + (next[next.length - 1] === '' ? '' : eol);
  checkEdit(text, result, file, ref, key, value, line);
  return result;
}

/** The edit must change exactly `key` of `ref`: anything else (a key given in another form, a multi-line value) and the user is asked to add the line. */
function checkEdit(before: string, after: string, file: string, ref: string, key: string, value: FileSettingValue, line: string): void {
  const refuse = (): CliError => new CliError('config_file_edit', `cannot edit ${file} safely; add this line to [projects.${ref}.settings] yourself: ${line}`);
  let old: ConfigFile;
  let edited: ConfigFile;
  try {
    old = parseConfigFile(before, file);
    edited = parseConfigFile(after, file);
  } catch {
    throw refuse();
  }
  const settingsOf = (config: ConfigFile, of: string) => config.projects.find((p) => p.ref === of)?.settings ?? new Map<string, FileSettingValue>();
  const expected = new Map(settingsOf(old, ref)).set(key, value);
  const got = settingsOf(edited, ref);
  const same = (a: ReadonlyMap<string, FileSettingValue>, b: ReadonlyMap<string, FileSettingValue>) => a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
  const othersSame = old.projects.every((p) => p.ref === ref || same(p.settings, settingsOf(edited, p.ref)));
  const noneAdded = edited.projects.every((p) => p.ref === ref || old.projects.some((o) => o.ref === p.ref));
  if (!same(expected, got) || !othersSame || !noneAdded) throw refuse();
}
