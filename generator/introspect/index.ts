export { introspectProject, isForbiddenSchema, type IntrospectOptions } from './introspect.js';
export { IntrospectionError } from './errors.js';
export { buildSchemaModel } from './build-model.js';
export type { RawCatalog } from './raw-catalog.js';
