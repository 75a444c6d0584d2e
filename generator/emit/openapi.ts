import { canonicalJson } from '../model/fingerprint.js';
import { functionGroups } from '../model/project-meta.js';
import type { EmitContext } from './context.js';

/**
 * `openapi.json`: an OpenAPI 3.1 skeleton — one path per table, view and function with
 * its operations, no schemas yet. JSON has no comments, so the generated-file header
 * lives in `x-generated-by` and `x-schema-fingerprint`. Keys are sorted for stable diffs.
 */
export function emitOpenApi(context: EmitContext): string {
  const { model } = context;
  const defaultSchema = model.schemas[0] ?? 'public';
  const ok = { '200': { description: 'OK' } };
  const paths: Record<string, unknown> = {};
  for (const relation of model.relations) {
    if (relation.schema !== defaultSchema) continue;
    const operations: Record<string, unknown> = { get: { summary: `Read ${relation.name}`, responses: ok } };
    if (relation.kind === 'table' || relation.updatable.insert) operations.post = { summary: `Create ${relation.name}`, responses: { '201': { description: 'Created' } } };
    if (relation.kind === 'table' || relation.updatable.update) operations.patch = { summary: `Update ${relation.name}`, responses: { '204': { description: 'No Content' } } };
    if (relation.kind === 'table' || relation.updatable.delete) operations.delete = { summary: `Delete ${relation.name}`, responses: { '204': { description: 'No Content' } } };
    if (relation.comment) operations.description = relation.comment;
    paths[`/${relation.name}`] = operations;
  }
  for (const overloads of functionGroups(model).values()) {
    const first = overloads[0];
    if (!first || first.schema !== defaultSchema) continue;
    const operations: Record<string, unknown> = { post: { summary: `Call ${first.name}`, responses: ok } };
    if (overloads.every((fn) => fn.volatility !== 'volatile')) operations.get = { summary: `Call ${first.name}`, responses: ok };
    paths[`/rpc/${first.name}`] = operations;
  }
  const document = {
    openapi: '3.1.0',
    info: { title: `${context.ref} data API`, version: context.fingerprint.slice(0, 12) },
    servers: [{ url: `/v1/${context.ref}/rest/v1` }],
    paths,
    components: { schemas: {} },
    'x-generated-by': 'Gantry. Do not edit: run `gantry gen` instead.',
    'x-schema-fingerprint': `sha256:${context.fingerprint}`,
  };
  return `${JSON.stringify(JSON.parse(canonicalJson(document)), null, 2)}\n`;
}
