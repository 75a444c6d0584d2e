import ts from 'typescript';

/**
 * Where a project's own code (`extensions/<ref>/*.ts`) names the schema, found with the TypeScript
 * compiler's parser (syntax only: no program, no type checker, so it costs milliseconds):
 * - hook registrations, `tables: { tickets: { beforeInsert … } }`, and the hooks' scopes;
 * - routes, `routes: { 'close-ticket': route({ method?, handler }) }`, and their scopes;
 * - the SQL of `ctx.sql\`…\`` templates (the literal text, each `${…}` as `$n`, as the runtime sends it), where
 *   the type checker found them (SourceFile.sqlSites) or the tag is written `….sql`;
 * - string literals, in code and in types (`Tables<'tickets'>`, `Database['public']['Tables']['tickets']`,
 *   `.from('tickets')`), and property names (`row.title`, `{ title }`).
 * Matching a site to a change is `referencesTo`; this module only reads the code.
 */

export interface SourceFile {
  /** How the report names the file: `extensions/<ref>/index.ts`. */
  readonly name: string;
  readonly text: string;
  /**
   * Where the type checker found `ctx.sql` templates (runtime/extensions/sql-sites.ts: also a destructured
   * `sql` or one held in a variable), 1-based; templates tagged `….sql` or `sql` are found without it.
   */
  readonly sqlSites?: readonly { readonly line: number; readonly column: number }[];
}

export type SiteKind = 'hook' | 'sql' | 'string' | 'property';

export interface CodeSite {
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  readonly column: number;
  readonly kind: SiteKind;
  /** The hook's table and name (`tickets.beforeInsert`), the SQL text, the literal or the property name. */
  readonly text: string;
  /** The hook it lies in or registers. */
  readonly hook: { readonly table: string; readonly name: string } | null;
  /** The custom route it lies in. */
  readonly route: { readonly name: string; readonly method: string } | null;
  /** The text of the nearest enclosing function (or the file): where a column name is read as a column of a table that function names. */
  readonly scope: string;
}

export interface ExtensionCode {
  /** The schema whose tables `tables:` names (`defineExtension<Database>('other')`), `public` by default. */
  readonly schema: string;
  readonly sites: readonly CodeSite[];
}

function propertyName(name: ts.PropertyName): string | null {
  return ts.isIdentifier(name) || ts.isStringLiteralLike(name) || ts.isNumericLiteral(name) ? name.text : null;
}

function objectProperty(object: ts.ObjectLiteralExpression, name: string): ts.ObjectLiteralElementLike | undefined {
  return object.properties.find((p) => p.name !== undefined && propertyName(p.name) === name);
}

/** `route({ … })` or a plain object: the route's definition object. */
function routeObject(node: ts.Node): ts.ObjectLiteralExpression | null {
  if (ts.isObjectLiteralExpression(node)) return node;
  if (ts.isCallExpression(node) && node.arguments[0] && ts.isObjectLiteralExpression(node.arguments[0])) return node.arguments[0];
  return null;
}

function isSqlTag(tag: ts.Expression): boolean {
  return (ts.isPropertyAccessExpression(tag) && tag.name.text === 'sql') || (ts.isIdentifier(tag) && tag.text === 'sql');
}

/** A template's text as the runtime sends it: `${…}` becomes `$1`, `$2`, … */
export function templateSql(template: ts.TemplateLiteral): string {
  if (ts.isNoSubstitutionTemplateLiteral(template)) return template.text;
  return template.head.text + template.templateSpans.map((span, i) => `$${i + 1}${span.literal.text}`).join('');
}

export function scanExtensionCode(files: readonly SourceFile[]): ExtensionCode {
  let schema = 'public';
  const sites: CodeSite[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(file.name, file.text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const typedSql = new Set((file.sqlSites ?? []).map((site) => `${site.line}:${site.column}`));
    const hooks = new Map<ts.Node, { table: string; name: string }>();
    const routes = new Map<ts.Node, { name: string; method: string }>();
    const at = (node: ts.Node) => {
      const { line, character } = source.getLineAndCharacterOfPosition(node.getStart(source));
      return { line: line + 1, column: character + 1 };
    };
    const context = (node: ts.Node) => {
      let hook: CodeSite['hook'] = null;
      let route: CodeSite['route'] = null;
      let scope: ts.Node = source;
      for (let n: ts.Node | undefined = node; n; n = n.parent) {
        hook ??= hooks.get(n) ?? null;
        route ??= routes.get(n) ?? null;
        if (scope === source && ts.isFunctionLike(n)) scope = n;
      }
      return { hook, route, scope: scope.getText(source) };
    };
    const add = (node: ts.Node, kind: SiteKind, text: string, hook?: CodeSite['hook']) => {
      const found = context(node);
      sites.push({ file: file.name, ...at(node), kind, text, hook: hook ?? found.hook, route: found.route, scope: found.scope });
    };
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isCallExpression(node.expression)) {
        const inner = node.expression;
        if (ts.isIdentifier(inner.expression) && inner.expression.text === 'defineExtension' && inner.arguments[0] && ts.isStringLiteralLike(inner.arguments[0])) {
          schema = inner.arguments[0].text;
        }
      }
      if (ts.isPropertyAssignment(node) && ts.isObjectLiteralExpression(node.initializer)) {
        const key = propertyName(node.name);
        if (key === 'tables') {
          for (const table of node.initializer.properties) {
            const tableName = table.name && propertyName(table.name);
            if (!tableName || !ts.isPropertyAssignment(table) || !ts.isObjectLiteralExpression(table.initializer)) continue;
            for (const hook of table.initializer.properties) {
              const hookName = hook.name && propertyName(hook.name);
              if (!hookName) continue;
              hooks.set(hook, { table: tableName, name: hookName });
              add(hook, 'hook', `${tableName}.${hookName}`, { table: tableName, name: hookName });
            }
          }
        }
        if (key === 'routes') {
          for (const entry of node.initializer.properties) {
            const name = entry.name && propertyName(entry.name);
            const definition = ts.isPropertyAssignment(entry) ? routeObject(entry.initializer) : null;
            if (!name || !definition) continue;
            const method = objectProperty(definition, 'method');
            const methodName = method && ts.isPropertyAssignment(method) && ts.isStringLiteralLike(method.initializer) ? method.initializer.text : 'POST';
            routes.set(entry, { name, method: methodName });
          }
        }
      }
      if (ts.isTaggedTemplateExpression(node) && (isSqlTag(node.tag) || typedSql.has(`${at(node).line}:${at(node).column}`))) {
        add(node, 'sql', templateSql(node.template));
        ts.forEachChild(node.template, visit);
        return;
      }
      if (ts.isStringLiteralLike(node) && !ts.isImportDeclaration(node.parent) && !ts.isExportDeclaration(node.parent) && !ts.isExternalModuleReference(node.parent)) {
        add(node, 'string', node.text);
      }
      if (ts.isPropertyAccessExpression(node)) add(node.name, 'property', node.name.text);
      if ((ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node) || ts.isPropertySignature(node)) && ts.isIdentifier(node.name)) {
        if (!hooks.has(node)) add(node.name, 'property', node.name.text);
      }
      if (ts.isBindingElement(node)) {
        const name = node.propertyName ?? node.name;
        if (ts.isIdentifier(name)) add(name, 'property', name.text);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  // Hooks are registered before their bodies are visited; routes too, so every site knows its scope.
  return { schema, sites };
}
