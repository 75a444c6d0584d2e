import { parseConfigFile, type FileSettingValue } from '../../runtime/config-file.js';
import { isSecretSetting } from '../../runtime/platform/settings.js';
import { envReference } from './declared.js';

/** One setting of `[projects.<ref>.settings]` changed between two versions of gantry.toml. */
export interface SettingDiff {
  readonly key: string;
  readonly change: 'added' | 'removed' | 'changed';
  /** As the file writes it, a secret given as a value never shown; null when the version does not set it. */
  readonly base: string | null;
  readonly head: string | null;
}

/** A value as a report shows it: a reference as written, a secret's value never. */
function shown(key: string, value: FileSettingValue | undefined): string | null {
  if (value === undefined) return null;
  if (isSecretSetting(key) && envReference(value) === null && value !== '') return '(secret value)';
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/** The settings `ref` is declared with in a version of gantry.toml (null: the file is not there); empty when it does not parse. */
export function declaredIn(text: string | null, file: string, ref: string): ReadonlyMap<string, FileSettingValue> {
  if (text === null) return new Map();
  return parseConfigFile(text, file).projects.find((p) => p.ref === ref)?.settings ?? new Map();
}

/** The settings changed from `base` to `head`, in key order; secrets compare by what the file holds (their reference). */
export function diffSettings(base: ReadonlyMap<string, FileSettingValue>, head: ReadonlyMap<string, FileSettingValue>): SettingDiff[] {
  const keys = [...new Set([...base.keys(), ...head.keys()])].sort();
  return keys.flatMap((key): SettingDiff[] => {
    const [before, after] = [base.get(key), head.get(key)];
    if (before === after) return [];
    const change = before === undefined ? 'added' : after === undefined ? 'removed' : 'changed';
    return [{ key, change, base: shown(key, before), head: shown(key, after) }];
  });
}

const marks = { added: '+', removed: '-', changed: '~' } as const;

/** The section `gantry diff` prints after the API report; nothing when no setting changed. */
export function settingsText(ref: string, diffs: readonly SettingDiff[]): string {
  if (diffs.length === 0) return '';
  const lines = [`Settings: ${diffs.length} changed in gantry.toml [projects.${ref}.settings]`];
  for (const d of diffs) {
    lines.push(`  ${marks[d.change]} ${d.key}${d.change === 'added' ? ` = ${d.head}` : d.change === 'removed' ? ` (was ${d.base})` : `: ${d.base} -> ${d.head}`}`);
  }
  return lines.join('\n');
}

/** The same section as Markdown for a pull-request comment. */
export function settingsMarkdown(ref: string, diffs: readonly SettingDiff[], baseLabel: string, headLabel: string): string {
  if (diffs.length === 0) return '';
  const cell = (value: string | null) => (value === null ? '(not set)' : `\`${value.replace(/`/g, "'").replace(/\|/g, '\\|')}\``);
  return [
    `#### Settings (gantry.toml \`[projects.${ref}.settings]\`)`,
    '',
    `| Setting | ${baseLabel} | ${headLabel} |`,
    '|---|---|---|',
    ...diffs.map((d) => `| \`${d.key}\` | ${cell(d.base)} | ${cell(d.head)} |`),
  ].join('\n');
}
