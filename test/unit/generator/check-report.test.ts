import { describe, expect, it } from 'vitest';
import type { ProjectCheck } from '../../../generator/check/gate.js';
import { gatePasses, reportProject, reportText } from '../../../generator/check/report.js';

const base: ProjectCheck = { ref: 'shop', status: 'up_to_date', migrations: 2, drift: [], extensions: [], notCheckable: [], error: null, history: [], historyBase: null };
const FROM_MIGRATIONS = '  run: npx gantry gen shop --from-migrations   (writes generated/shop/ as this check builds it, from migrations/shop/ alone)';

describe('the gate report', () => {
  it('says one line for a project that passes, and passes', () => {
    const report = reportProject(base);
    expect(reportText([report])).toBe('shop: up to date');
    expect(report.remedy).toBeNull();
    expect(gatePasses([report])).toBe(true);
  });

  it('lists each differing file with at most 12 changed lines, then the remedy', () => {
    const before = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n');
    const after = Array.from({ length: 30 }, (_, i) => `LINE ${i}`).join('\n');
    const report = reportProject({
      ...base,
      status: 'differs',
      drift: [
        { path: 'openapi.json', change: 'modified', current: before, generated: after },
        { path: 'tables/new.ts', change: 'added', current: null, generated: 'x' },
        { path: 'tables/old.ts', change: 'removed', current: 'x', generated: null },
      ],
    });
    const text = reportText([report]).split('\n');
    expect(text[0]).toBe('shop: differs (3 files)');
    expect(text[1]).toBe('  M openapi.json');
    expect(text[2]).toBe('    @@ -1 +1 @@');
    expect(text.filter((line) => /^ {4}[-+] /.test(line))).toHaveLength(12);
    expect(text.slice(-4)).toEqual(['    … 48 more changed line(s)', '  A tables/new.ts', '  D tables/old.ts', FROM_MIGRATIONS]);
    expect(gatePasses([report])).toBe(false);
  });

  it('fails a project whose code is current but whose extensions do not typecheck', () => {
    const report = reportProject({ ...base, extensions: ["extensions/shop/index.ts:3:7 Property 'slug' does not exist"] });
    expect(reportText([report]).split('\n')).toEqual([
      'shop: up to date',
      'shop: extensions do not typecheck',
      "  extensions/shop/index.ts:3:7 Property 'slug' does not exist",
      '  fix extensions/shop/ for the schema its migrations give',
    ]);
    expect(gatePasses([report])).toBe(false);
  });

  it('counts the files of a project with no generated code rather than listing them', () => {
    const drift = ['index.ts', 'schema.json'].map((path) => ({ path, change: 'added' as const, current: null, generated: 'x' }));
    const report = reportProject({ ...base, status: 'no_generated_code', migrations: 1, drift });
    expect(reportText([report]).split('\n')).toEqual(['shop: no generated code for 1 migration (generated/shop/ lacks 2 files)', FROM_MIGRATIONS]);
  });

  it('names the remedy for where the local database stands', () => {
    const differs = { ...base, status: 'differs' as const, drift: [{ path: 'index.ts', change: 'modified' as const, current: 'a', generated: 'b' }] };
    expect(reportProject(differs, 'in_sync').remedy).toBe(FROM_MIGRATIONS.trim());
    expect(reportProject(differs, 'pending').remedy).toBe('run: npx gantry migrate shop   (the local database lacks migrations of this branch: it applies them and regenerates)');
    expect(reportProject(differs, 'other_branch').remedy).toBe(
      "run: npx gantry db reset shop --yes   (the local database ran migrations this branch does not have: it is rebuilt from this branch's migrations and seed.sql, keys and settings kept, and the code regenerated)",
    );
  });

  it('fails a project whose history has problems, each with its remedy, naming the base', () => {
    const report = reportProject({
      ...base,
      historyBase: 'main',
      history: [{ kind: 'edited', version: '20260101000000', message: 'migrations/shop/20260101000000_a.sql: edited since main recorded it in gantry.sum', remedy: 'restore it' }],
    });
    expect(reportText([report]).split('\n')).toEqual([
      'shop: up to date',
      'shop: schema history: 1 problem (against main)',
      '  migrations/shop/20260101000000_a.sql: edited since main recorded it in gantry.sum',
      '    restore it',
    ]);
    expect(gatePasses([report])).toBe(false);
  });

  it('never passes with no project at all', () => {
    expect(gatePasses([])).toBe(false);
  });
});
