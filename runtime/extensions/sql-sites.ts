import ts from 'typescript';

/**
 * Where extension code sends SQL: found with the type checker, not by matching text, so `ctx.sql`, a destructured
 * `{ sql }`, `afterWrite`'s `ctx` and any variable typed as `ExtensionContext` (or holding its `sql`) are found
 * whatever they are named and wherever `gantry` was imported from.
 */

/** A tagged template `ctx.sql\`…\``: its statement as `sqlQuery` builds it (each interpolation `$n`). */
export interface SqlSite {
  readonly kind: 'query';
  /** The source file, as the program names it (absolute). */
  readonly file: string;
  /** 1-based, of the tag's first character. */
  readonly line: number;
  readonly col: number;
  readonly text: string;
  readonly paramCount: number;
  /** Offset of the tag's first character in the file. */
  readonly start: number;
  /** How many type arguments the site writes (`ctx.sql<Row>`), and the offset where another one would go (after the tag when none). */
  readonly typeArguments: { readonly count: number; readonly end: number };
}

/** A use of the query API whose statement cannot be known before it runs (a call with computed strings, `.call`/`.apply`/`.bind`). */
export interface UncheckableSite {
  readonly kind: 'not_checkable';
  readonly file: string;
  readonly line: number;
  readonly col: number;
  readonly start: number;
}

/** The `sql` member of the runtime's `ExtensionContext` interface (runtime/extensions/define.ts). */
function isContextSql(declaration: ts.Declaration | undefined): boolean {
  if (!declaration || !ts.isMethodSignature(declaration) || !ts.isIdentifier(declaration.name) || declaration.name.text !== 'sql') return false;
  const owner = declaration.parent;
  return ts.isInterfaceDeclaration(owner) && owner.name.text === 'ExtensionContext';
}

/** Whether `node`'s type is the context's `sql` (accessed, destructured or held in a variable). */
function isSqlFunction(checker: ts.TypeChecker, node: ts.Expression): boolean {
  const signatures = checker.getTypeAtLocation(node).getCallSignatures();
  return signatures.length > 0 && signatures.every((s) => isContextSql(s.getDeclaration()));
}

/** The statement a template sends: literal parts joined by `$1..$n`, as runtime/extensions/sql.ts builds it. */
function templateText(template: ts.TemplateLiteral): { text: string; paramCount: number } {
  if (ts.isNoSubstitutionTemplateLiteral(template)) return { text: template.text, paramCount: 0 };
  let text = template.head.text;
  template.templateSpans.forEach((span, i) => {
    text += `$${i + 1}${span.literal.text}`;
  });
  return { text, paramCount: template.templateSpans.length };
}

function position(file: ts.SourceFile, node: ts.Node): { file: string; line: number; col: number; start: number } {
  const start = node.getStart(file);
  const { line, character } = file.getLineAndCharacterOfPosition(start);
  return { file: file.fileName, line: line + 1, col: character + 1, start };
}

/**
 * Every query site of `files` (absolute paths of the program's root files; default: every file that is not a
 * declaration file or under node_modules), in file order then source order.
 */
export function findSqlSites(program: ts.Program, files?: readonly string[]): (SqlSite | UncheckableSite)[] {
  const checker = program.getTypeChecker();
  const wanted = files ?? program.getSourceFiles().filter((f) => !f.isDeclarationFile && !f.fileName.includes('/node_modules/')).map((f) => f.fileName);
  const sites: (SqlSite | UncheckableSite)[] = [];
  for (const fileName of wanted) {
    const file = program.getSourceFile(fileName);
    if (!file) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isTaggedTemplateExpression(node) && isSqlFunction(checker, node.tag)) {
        const args = node.typeArguments;
        sites.push({
          kind: 'query',
          ...position(file, node),
          ...templateText(node.template),
          typeArguments: { count: args?.length ?? 0, end: args ? args.end : node.tag.end },
        });
      } else if (ts.isCallExpression(node) && isSqlFunction(checker, node.expression)) {
        sites.push({ kind: 'not_checkable', ...position(file, node) });
      } else if (
        ts.isPropertyAccessExpression(node) &&
        ['call', 'apply', 'bind'].includes(node.name.text) &&
        isSqlFunction(checker, node.expression)
      ) {
        sites.push({ kind: 'not_checkable', ...position(file, node) });
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return sites;
}
