import SwaggerParser from '@apidevtools/swagger-parser';
import { compareSpecs, type FlatOpenAPIV3_1 } from '@useoptic/openapi-utilities';
import { RuleRunner } from '@useoptic/rulesets-base';
import { BreakingChangesRuleset } from '@useoptic/standard-rulesets';
import { describe, expect, it } from 'vitest';
import { diffApi } from '../../../generator/api-diff/diff-api.js';
import { emitProject } from '../../../generator/emit/project.js';
import type { FunctionArgModel, FunctionModel, SchemaModel } from '../../../generator/model/types.js';
import { column, int4, model, table, text, type } from './model-fixtures.js';

/**
 * The same change pairs judged by `gantry diff` (from the schema model) and by Optic's breaking
 * change rules (from the two openapi.json documents Gantry emits for them). docs/migrations.md
 * explains each difference; this test keeps that table true.
 */

const numeric = type('numeric');
const int8 = type('int8');
const owner = { name: 'own rows', command: 'SELECT' as const, permissive: true, roles: ['authenticated'], using: '(owner = auth.uid())', withCheck: null };
const rls = { enabled: true, forced: false };
const all = { select: true, insert: true, update: true, delete: true };

function items(columns = [column('id', int4), column('price', numeric), column('note', text, { nullable: true })], extra = {}) {
  return table('items', { columns, rls, policies: [owner], ...extra });
}
function rpc(args: FunctionArgModel[], extra: Partial<FunctionModel> = {}): FunctionModel {
  return {
    schema: 'public',
    name: 'total',
    identityArguments: args.map((a) => `${a.name} ${a.type.sql}`).join(', '),
    args,
    returnType: int4,
    returnsSet: false,
    rows: 0,
    volatility: 'stable',
    securityDefiner: false,
    language: 'sql',
    comment: null,
    execute: { anon: true, authenticated: true, service_role: true },
    ...extra,
  };
}
const arg = (name: string, hasDefault = false): FunctionArgModel => ({ name, type: int4, mode: 'in', hasDefault });
const base = model([items()], { functions: [rpc([arg('a')])] });
const withItems = (relation: ReturnType<typeof items>, functions = base.functions): SchemaModel => model([relation], { functions });

const pairs: Record<string, SchemaModel> = {
  'nullable column added': withItems(items([...items().columns, column('colour', text, { nullable: true })])),
  'NOT NULL column without default added': withItems(items([...items().columns, column('sku', text)])),
  'column dropped': withItems(items([column('id', int4), column('price', numeric)])),
  'column renamed': withItems(items([column('id', int4), column('price', numeric), column('remark', text, { nullable: true })])),
  'numeric → integer': withItems(items([column('id', int4), column('price', int4), column('note', text, { nullable: true })])),
  'integer → bigint': withItems(items([column('id', int8), column('price', numeric), column('note', text, { nullable: true })])),
  'NOT NULL dropped': withItems(items([column('id', int4), column('price', numeric, { nullable: true }), column('note', text, { nullable: true })])),
  'NOT NULL set': withItems(items([column('id', int4), column('price', numeric), column('note', text)])),
  'policy changed': withItems(items(undefined, { policies: [{ ...owner, using: 'true' }] })),
  'SELECT revoked from anon': withItems(items(undefined, { grants: { anon: { ...all, select: false }, authenticated: all, service_role: all } })),
  'required parameter added': withItems(items(), [rpc([arg('a'), arg('b')])]),
  'optional parameter added': withItems(items(), [rpc([arg('a'), arg('b', true)])]),
  'function made volatile': withItems(items(), [rpc([arg('a')], { volatility: 'volatile' })]),
  'table dropped': model([], { functions: base.functions }),
};

async function opticFindings(from: SchemaModel, to: SchemaModel): Promise<string[]> {
  const document = async (m: SchemaModel) =>
    (await SwaggerParser.dereference(JSON.parse(emitProject(m, { ref: 'shop' }).get('openapi.json')!), { dereference: { circular: 'ignore' } })) as unknown as FlatOpenAPIV3_1.Document;
  const sourcemap = { rootFilePath: 'openapi.json', files: [], refMappings: {} };
  const result = await compareSpecs(
    { jsonLike: await document(from), sourcemap, isEmptySpec: false },
    { jsonLike: await document(to), sourcemap, isEmptySpec: false },
    new RuleRunner([new BreakingChangesRuleset()]),
    {},
  );
  return [...new Set(result.results.filter((r) => !r.passed).map((r) => r.name ?? ''))].sort();
}

// Optic loads and runs its rule engine per pair: about a minute and a half on 2 busy cores.
describe('gantry diff and Optic on the same pairs', { timeout: 300_000 }, () => {
  it('classify as the documented table says', async () => {
    const table: Record<string, { gantry: string[]; optic: string[] }> = {};
    for (const [name, head] of Object.entries(pairs)) {
      table[name] = { gantry: diffApi(base, head).map((c) => `${c.severity} ${c.kind}`), optic: await opticFindings(base, head) };
    }
    expect(table).toEqual({
      'nullable column added': { gantry: ['compatible column_added'], optic: [] },
      'NOT NULL column without default added': { gantry: ['breaking column_added'], optic: ['prevent expanded in request union types'] },
      'column dropped': { gantry: ['breaking column_removed'], optic: ['prevent removing response property'] },
      'column renamed': { gantry: ['breaking column_renamed'], optic: ['prevent removing response property'] },
      'numeric → integer': { gantry: ['breaking column_type_changed'], optic: ['prevent expanded in request union types', 'prevent request property type changes', 'prevent response property type changes'] },
      'integer → bigint': { gantry: ['compatible column_type_changed'], optic: [] },
      'NOT NULL dropped': { gantry: ['breaking column_nullability_changed'], optic: ['prevent expanded in request union types', 'prevent response property type changes'] },
      'NOT NULL set': { gantry: ['breaking column_nullability_changed'], optic: ['prevent request property type changes'] },
      'policy changed': { gantry: ['breaking policy_changed'], optic: [] },
      'SELECT revoked from anon': { gantry: ['breaking grant_revoked'], optic: [] },
      'required parameter added': { gantry: ['breaking function_parameter_added'], optic: ['prevent changing request property to required', 'prevent new required query parameters'] },
      'optional parameter added': { gantry: ['compatible function_parameter_added'], optic: [] },
      'function made volatile': { gantry: ['breaking function_volatility_changed'], optic: ['prevent operation removal', 'prevent removing response property', 'prevent response status code removal'] },
      'table dropped': { gantry: ['breaking endpoint_removed'], optic: ['prevent operation removal', 'prevent removing response property', 'prevent response status code removal'] },
    });
  });
});
