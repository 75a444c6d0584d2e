import type { Static, TObject, TSchema } from '@sinclair/typebox';

/**
 * One hand-written endpoint, declared once: its method and path, its inputs as TypeBox schemas (their
 * TypeScript types are what its readers return: `BodyOf`, `QueryOf`), its answers, security and summary.
 * The OpenAPI operation is made from it (`openApiPaths`) and a test matches the declarations against the
 * routes the router serves, so the document, the types and the route cannot drift apart. The readers keep
 * their own error codes and messages (GoTrue's, the call-analysis API's): the schema states the shape they
 * accept, and their field lists come from it.
 */

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A JSON value of the document (an OpenAPI object or a JSON Schema). */
export type OpenApiObject = Readonly<Record<string, unknown>>;

export interface EndpointBody {
  readonly schema: TSchema;
  /** `application/json` unless stated; several when the endpoint reads the same fields from each. */
  readonly mediaType?: string | readonly string[];
  /** False for a body that may be left out. */
  readonly required?: boolean;
  /** The name of the schema under `components.schemas`: the operation refers to it there. */
  readonly component?: string;
}

export interface EndpointDeclaration {
  readonly method: HttpMethod;
  /** In OpenAPI's form, `{id}` for a path parameter, from the API's root (`/v1/calls/{id}`). */
  readonly path: string;
  readonly summary: string;
  readonly description?: string;
  readonly tags?: readonly string[];
  readonly operationId?: string;
  /** Absent: the document's default requirement; empty: none (a public endpoint). */
  readonly security?: readonly OpenApiObject[];
  /** Path parameters: each property one parameter, required. */
  readonly params?: TObject;
  /** Query parameters: each property one parameter, required unless optional. */
  readonly query?: TObject;
  /** Parameters the schemas above do not state (headers). */
  readonly parameters?: readonly OpenApiObject[];
  readonly body?: EndpointBody;
  /** By status code: OpenAPI response objects. */
  readonly responses: Readonly<Record<string, OpenApiObject>>;
}

/** The request body an endpoint accepts, as its reader returns it before its own checks. */
export type BodyOf<E extends EndpointDeclaration> = E['body'] extends { readonly schema: infer S extends TSchema } ? Static<S> : undefined;

/** The query parameters an endpoint accepts. */
export type QueryOf<E extends EndpointDeclaration> = E['query'] extends infer S extends TObject ? Static<S> : Record<string, never>;

/**
 * The fields of a request body as a reader holds them before checking each: the declared names only (a
 * reader that reads a field the declaration does not state fails to compile), each value still unknown.
 * A body of alternatives (`anyOf`) has the fields of every alternative.
 */
export type DeclaredFields<T> = { readonly [K in T extends unknown ? keyof T : never]?: unknown };

/** A declaration kept with its literal types, so that `BodyOf` and `QueryOf` see its schemas. */
export function declareEndpoint<const E extends EndpointDeclaration>(declaration: E): E {
  return declaration;
}

/** A TypeBox schema as JSON Schema: without TypeBox's symbol keys, which JSON leaves out anyway. */
export function jsonSchema(schema: TSchema): OpenApiObject {
  return JSON.parse(JSON.stringify(schema)) as OpenApiObject;
}

/** The property names of an object schema: the fields a body reader allows. */
export function fieldNames(schema: TObject): string[] {
  return Object.keys(schema.properties);
}

/** `#/components/schemas/<name>`. */
export function schemaRef(name: string): OpenApiObject {
  return { $ref: `#/components/schemas/${name}` };
}

/** Each property one parameter; a property's description is the parameter's, where OpenAPI shows it. */
function parametersOf(schema: TObject | undefined, location: 'path' | 'query'): OpenApiObject[] {
  if (!schema) return [];
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, property]) => {
    const { description, ...rest } = jsonSchema(property);
    return { name, in: location, required: location === 'path' || required.has(name), ...(description === undefined ? {} : { description }), schema: rest };
  });
}

/** The OpenAPI operation object of a declaration. */
export function openApiOperation(declaration: EndpointDeclaration): OpenApiObject {
  const { body } = declaration;
  const parameters = [...parametersOf(declaration.params, 'path'), ...parametersOf(declaration.query, 'query'), ...(declaration.parameters ?? [])];
  return {
    ...(declaration.tags ? { tags: declaration.tags } : {}),
    ...(declaration.operationId ? { operationId: declaration.operationId } : {}),
    summary: declaration.summary,
    ...(declaration.description ? { description: declaration.description } : {}),
    ...(declaration.security ? { security: declaration.security } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body
      ? {
          requestBody: {
            required: body.required ?? true,
            content: Object.fromEntries(
              [body.mediaType ?? 'application/json'].flat().map((type) => [type, { schema: body.component ? schemaRef(body.component) : jsonSchema(body.schema) }]),
            ),
          },
        }
      : {}),
    responses: declaration.responses,
  };
}

/** The `paths` object of declarations, in their order. */
export function openApiPaths(declarations: readonly EndpointDeclaration[]): Record<string, Record<string, OpenApiObject>> {
  const paths: Record<string, Record<string, OpenApiObject>> = {};
  for (const declaration of declarations) {
    paths[declaration.path] = { ...paths[declaration.path], [declaration.method]: openApiOperation(declaration) };
  }
  return paths;
}

/** The schemas the declarations name as components, by name. */
export function bodyComponents(declarations: readonly EndpointDeclaration[]): Record<string, OpenApiObject> {
  return Object.fromEntries(
    declarations.flatMap(({ body }) => (body?.component ? [[body.component, jsonSchema(body.schema)] as const] : [])),
  );
}

/** `METHOD /path` of a declaration as a router registers it (`:id` for `{id}`), below `prefix`. */
export function routeKey(declaration: EndpointDeclaration, prefix = ''): string {
  const path = declaration.path.startsWith(prefix) ? declaration.path.slice(prefix.length) : declaration.path;
  return `${declaration.method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`;
}

type Missing<T, L extends readonly string[]> = Exclude<keyof T & string, L[number]>;

/**
 * The field names of a declared body or query (`BodyOf`, `QueryOf`), all of them and no other: the list a
 * reader allows, checked by the compiler against the declaration (a field added to one and not the other
 * fails to compile), with no import of the declaration at run time.
 */
export function fieldList<T>() {
  return <const L extends readonly (keyof T & string)[]>(names: [Missing<T, L>] extends [never] ? L : { readonly missing: Missing<T, L> }): readonly string[] =>
    names as unknown as readonly string[];
}
