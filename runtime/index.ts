/**
 * The runtime's public entry, the package's `gantry`: the only module generated code and
 * extensions import.
 */
// Its types use Node's; this brings them to an extension's program from gantry's own dependency,
// wherever the package manager put it, rather than from a typeRoots the team must configure.
/// <reference types="node" />
export type * from './rest/metadata.js';
export type { ProjectContext, ProjectSettings } from './platform/project-context.js';
export { rpcRoutes, tableRoutes } from './rest/routes.js';
export type { ProjectDefinition, RpcRoutes, TableRoutes } from './rest/routes.js';
export { defineTable } from './rest/table-declaration.js';
export type { ColumnDeclaration, TableDeclaration } from './rest/table-declaration.js';
export { defineExtension, route } from './extensions/define.js';
export type { Extension, ExtensionContext, ExtensionUser, FunctionRoute, RouteMethod, TableHooks } from './extensions/define.js';
export { ExtensionError } from './extensions/error.js';
export { t } from './extensions/schema.js';
export type { Infer, Schema } from './extensions/schema.js';
