import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The repository's import graph over value imports: the edges that load a module at run time.
 * `import type`, `export type` and imports whose every named binding is `type` are left out,
 * since a type crosses no floor at run time. Relative specifiers only (packages are leaves);
 * `.js` specifiers resolve to the `.ts` file beside them. Dynamic `import()` counts as a value
 * import: the module still depends on what it loads.
 *
 * TypeScript's own parser (already a dependency) reads each file, rather than a regex (which
 * cannot tell `import type` across lines) or dependency-cruiser/madge (a dependency tree of
 * their own for what is forty lines here).
 */

export const repositoryRoot = path.resolve(import.meta.dirname, '../..');

export function sourceFiles(dirs: readonly string[]): string[] {
  return dirs.flatMap((dir) => {
    const full = path.join(repositoryRoot, dir);
    if (!fs.existsSync(full)) return [];
    return fs.readdirSync(full, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
      .map((file) => path.posix.join(dir, file.split(path.sep).join('/')));
  }).sort();
}

function isTypeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  if (!bindings || !ts.isNamedImports(bindings)) return false;
  return bindings.elements.length > 0 && bindings.elements.every((element) => element.isTypeOnly);
}

function isTypeOnlyExport(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return !!clause && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((element) => element.isTypeOnly);
}

/** The relative specifiers a file loads at run time. */
export function valueSpecifiers(text: string, fileName = 'file.ts'): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!isTypeOnlyImport(node)) found.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!isTypeOnlyExport(node)) found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) found.push(argument.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter((specifier) => specifier.startsWith('.'));
}

function resolve(from: string, specifier: string): string | null {
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  for (const candidate of [target.replace(/\.js$/, '.ts'), target, `${target}.ts`, `${target}/index.ts`]) {
    if (candidate.endsWith('.ts') && fs.existsSync(path.join(repositoryRoot, candidate))) return candidate;
  }
  return null;
}

/** file → the repository files it value-imports (within the given files). */
export function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = fs.readFileSync(path.join(repositoryRoot, file), 'utf8');
    const targets = valueSpecifiers(text, file)
      .map((specifier) => resolve(file, specifier))
      .filter((target): target is string => target !== null && known.has(target));
    graph.set(file, [...new Set(targets)].sort());
  }
  return graph;
}

/** Strongly connected components of more than one node (or a self-import), each sorted, by Tarjan. */
export function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const lowlinks = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (node: string): void => {
    indices.set(node, index);
    lowlinks.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        connect(next);
        lowlinks.set(node, Math.min(lowlinks.get(node)!, lowlinks.get(next)!));
      } else if (onStack.has(next)) {
        lowlinks.set(node, Math.min(lowlinks.get(node)!, indices.get(next)!));
      }
    }
    if (lowlinks.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) components.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!indices.has(node)) connect(node);
  return components.sort((a, b) => b.length - a.length || a[0]!.localeCompare(b[0]!));
}

/** The graph with each file replaced by the folder it stands in (`depth` path segments deep). */
export function folderGraph(graph: ReadonlyMap<string, readonly string[]>, room: (file: string) => string): Map<string, string[]> {
  const folders = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    const from = room(file);
    const set = folders.get(from) ?? new Set<string>();
    for (const target of targets) if (room(target) !== from) set.add(room(target));
    folders.set(from, set);
  }
  return new Map([...folders].map(([folder, targets]) => [folder, [...targets].sort()]));
}

/** Lines per file: count, median, 90th percentile, max (and the largest file). */
export function sizeDistribution(files: readonly string[]): { count: number; median: number; p90: number; max: number; largest: string } {
  const sizes = files.map((file) => ({ file, lines: fs.readFileSync(path.join(repositoryRoot, file), 'utf8').split('\n').length }))
    .sort((a, b) => a.lines - b.lines);
  const at = (q: number): number => sizes[Math.min(sizes.length - 1, Math.floor(q * sizes.length))]!.lines;
  return { count: sizes.length, median: at(0.5), p90: at(0.9), max: sizes.at(-1)!.lines, largest: sizes.at(-1)!.file };
}
