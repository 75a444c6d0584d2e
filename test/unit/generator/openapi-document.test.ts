import SwaggerParser from '@apidevtools/swagger-parser';
import openapiTS, { astToString } from 'openapi-typescript';
import { describe, expect, it } from 'vitest';
import { emitProject, planProject } from '../../../generator/emit/project.js';
import { OPENAPI_TS_OPTIONS, openApiTypes } from '../../../generator/emit/openapi/client-types.js';
import { buildOpenApiDocument, openApiText } from '../../../generator/emit/openapi/document.js';
import { defaultValue, nullable, typeSchema } from '../../../generator/emit/openapi/json-schema.js';
import { describePolicy } from '../../../generator/emit/openapi/policies.js';
import { schemaFileBase } from '../../../generator/emit/names.js';
import type { FunctionModel, SchemaModel } from '../../../generator/model/types.js';
import { column, int4, model, table, text, type } from './model-fixtures.js';

const int8 = type('int8');
const mood = type('mood', 'enum', { schema: 'public', sql: 'public.mood' });
const none = { select: false, insert: false, update: false, delete: false };
const all = { select: true, insert: true, update: true, delete: true };

function fn(name: string, extra: Partial<FunctionModel>): FunctionModel {
  return {
    schema: 'public',
    name,
    identityArguments: '',
    args: [],
    returnType: int4,
    returnsSet: false,
    rows: 0,
    volatility: 'volatile',
    securityDefiner: false,
    language: 'sql',
    comment: null,
    execute: { anon: true, authenticated: true, service_role: true },
    ...extra,
  };
}

const sample: SchemaModel = model(
  [
    table('things', {
      comment: 'Things people own.',
      columns: [
        column('id', int8, { identity: 'always' }),
        column('name', type('varchar', 'base', { sql: 'character varying(20)' }), { comment: 'Display name.' }),
        column('price', type('numeric', 'base', { sql: 'numeric(10,2)' }), { nullable: true }),
        column('owner', type('uuid'), { default: 'auth.uid()' }),
        column('created_at', type('timestamptz', 'base', { sql: 'timestamp with time zone' }), { default: 'now()' }),
        column('mood', mood, { nullable: true, default: "'happy'::public.mood" }),
        column('tags', type('_text', 'array', { sql: 'text[]', element: text }), { nullable: true }),
        column('meta', type('jsonb'), { default: "'{}'::jsonb" }),
        column('total', type('numeric'), { nullable: true, generated: 'price * 2' }),
      ],
      rls: { enabled: true, forced: false },
      policies: [
        { name: 'owners read', command: 'SELECT', permissive: true, roles: ['authenticated'], using: '(owner = auth.uid())', withCheck: null },
        { name: 'owners add', command: 'INSERT', permissive: true, roles: ['authenticated'], using: null, withCheck: '(owner = auth.uid())' },
      ],
      grants: {
        anon: { ...none, select: true },
        authenticated: { ...none, select: true, insert: true },
        service_role: all,
      },
    }),
    table('thing_view', { kind: 'view', primaryKey: null, updatable: { insert: false, update: false, delete: false } }),
    table('secret', { grants: { anon: none, authenticated: none, service_role: none } }),
    table('users', { schema: 'auth' }),
  ],
  {
    enums: [{ schema: 'public', name: 'mood', values: ['happy', 'sad'], comment: null }],
    functions: [
      fn('add', {
        identityArguments: 'a integer, b integer',
        args: [
          { name: 'a', type: int4, mode: 'in', hasDefault: false },
          { name: 'b', type: int4, mode: 'in', hasDefault: true },
        ],
        volatility: 'immutable',
      }),
      fn('bump', { returnType: type('void', 'pseudo'), execute: { anon: false, authenticated: true, service_role: true } }),
      fn('my_things', { returnType: type('things', 'composite', { schema: 'public', sql: 'public.things' }), returnsSet: true, volatility: 'stable' }),
      fn('hidden', { execute: { anon: false, authenticated: false, service_role: false } }),
    ],
  },
);

type Doc = {
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { schemas: Record<string, Record<string, unknown> & { properties?: Record<string, unknown> }> };
};

const document = buildOpenApiDocument(planProject(sample, 'sample')) as unknown as Doc;

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 and the same text for the same model', async () => {
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toMatchObject({ openapi: '3.1.0' });
    const again = buildOpenApiDocument(planProject(JSON.parse(JSON.stringify(sample)) as SchemaModel, 'sample'));
    expect(openApiText(again)).toBe(openApiText(document as unknown as Record<string, unknown>));
  });

  it('maps column types to precise JSON Schema with nullability, defaults, comments and read-only generated columns', () => {
    const row = document.components.schemas.things as { properties: Record<string, unknown>; required: string[]; description: string };
    expect(row.description).toBe('Things people own.\n\nA row of `things` as `select=*` returns it.');
    expect(row.required).toEqual(['created_at', 'id', 'meta', 'mood', 'name', 'owner', 'price', 'tags', 'total']);
    expect(row.properties).toEqual({
      id: { type: 'integer', format: 'int64', readOnly: true, description: 'Primary key. Identity (generated always).', 'x-pg-type': 'int8' },
      name: { type: 'string', maxLength: 20, description: 'Display name.', 'x-pg-type': 'character varying(20)' },
      price: { type: ['number', 'null'], format: 'decimal', 'x-pg-type': 'numeric(10,2)' },
      owner: { type: 'string', format: 'uuid', description: 'Default: `auth.uid()`.', 'x-pg-type': 'uuid' },
      created_at: { type: 'string', format: 'date-time', description: 'Default: `now()`.', 'x-pg-type': 'timestamp with time zone' },
      mood: {
        type: ['string', 'null'],
        enum: ['happy', 'sad', null],
        default: 'happy',
        description: "Default: `'happy'::public.mood`.",
        'x-pg-type': 'public.mood',
      },
      tags: { type: ['array', 'null'], items: { type: 'string' }, 'x-pg-type': 'text[]' },
      meta: { default: {}, description: "Default: `'{}'::jsonb`.", 'x-pg-type': 'jsonb' },
      total: { type: ['number', 'null'], format: 'decimal', readOnly: true, description: 'Generated: `price * 2`.', 'x-pg-type': 'numeric' },
    });
    const insert = document.components.schemas['things.Insert'] as { properties: Record<string, unknown>; required: string[]; additionalProperties: boolean };
    expect(Object.keys(insert.properties).sort()).toEqual(['created_at', 'meta', 'mood', 'name', 'owner', 'price', 'tags']);
    expect(insert.required).toEqual(['name']);
    expect(insert.additionalProperties).toBe(false);
    expect(Object.keys((document.components.schemas['things.Update'] as { properties: object }).properties)).toEqual(Object.keys(insert.properties));
    expect(document.components.schemas['thing_view.Insert']).toBeUndefined();
  });

  it('offers only the methods some role is granted, naming the roles of each', () => {
    const things = document.paths['/rest/v1/things'] as Record<string, Record<string, unknown>>;
    expect(Object.keys(things).sort()).toEqual(['delete', 'description', 'get', 'patch', 'post', 'put', 'summary']);
    expect(things.get?.['x-roles']).toEqual(['anon', 'authenticated', 'service_role']);
    expect(things.post?.['x-roles']).toEqual(['authenticated', 'service_role']);
    expect(things.patch?.['x-roles']).toEqual(['service_role']);
    expect(things.delete?.['x-roles']).toEqual(['service_role']);
    const view = document.paths['/rest/v1/thing_view'] as Record<string, unknown>;
    expect(Object.keys(view).sort()).toEqual(['description', 'get', 'summary']);
    expect(Object.keys(document.paths).filter((p) => p.startsWith('/rest/v1/')).sort()).toEqual([
      '/rest/v1/rpc/add',
      '/rest/v1/rpc/bump',
      '/rest/v1/rpc/my_things',
      '/rest/v1/thing_view',
      '/rest/v1/things',
    ]);
  });

  it('describes the row-level security in words, once: in the table\'s tag, not in its operations', () => {
    const things = document.paths['/rest/v1/things'] as Record<string, Record<string, unknown> | string>;
    const tag = (document as unknown as { tags: { name: string; description?: string }[] }).tags.find((t) => t.name === 'things');
    expect(tag?.description).toContain(
      [
        'Row-level security is **on** (`service_role` bypasses it). Policies:',
        '- **owners read** (permissive) for SELECT, applies to `authenticated`; rows are visible or affected only when `(owner = auth.uid())`.',
        '- **owners add** (permissive) for INSERT, applies to `authenticated`; new or changed rows must satisfy `(owner = auth.uid())`.',
      ].join('\n'),
    );
    const post = things.post as { description: string };
    expect(post.description).toContain('Allowed for roles: `authenticated`, `service_role`.');
    expect(JSON.stringify(things)).not.toContain('**owners');
    expect(JSON.stringify(document).split('**owners add**').length - 1).toBe(1);
    expect(
      describePolicy({ name: 'p', command: 'ALL', permissive: false, roles: ['public'], using: 'true', withCheck: null }),
    ).toBe('**p** (restrictive) for all commands (SELECT, INSERT, UPDATE, DELETE), applies to every role; rows are visible or affected only when `true`.');
  });

  it('documents the query parameters, headers and error responses of a read', () => {
    const get = document.paths['/rest/v1/things']?.get as { parameters: { $ref: string }[]; responses: Record<string, unknown> };
    expect(get.parameters.map((p) => p.$ref.replace('#/components/parameters/', ''))).toEqual([
      'select', 'order', 'limit', 'offset', 'count', 'or', 'and', 'Range', 'Prefer.read',
      'filter.things.created_at', 'filter.things.id', 'filter.things.meta', 'filter.things.mood', 'filter.things.name',
      'filter.things.owner', 'filter.things.price', 'filter.things.tags', 'filter.things.total',
    ]);
    expect(Object.keys(get.responses)).toEqual(['200', '206', '400', '401', '403', '404', '406', '416', '500']);
    expect(get.responses['200']).toMatchObject({
      headers: { 'Content-Range': { schema: { type: 'string' } } },
      content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/things' } } } },
    });
  });

  it('documents functions: GET only when not volatile, argument and result schemas, void as 204', () => {
    const add = document.paths['/rest/v1/rpc/add'] as Record<string, Record<string, unknown>>;
    expect(Object.keys(add).sort()).toEqual(['get', 'post']);
    expect(add.post?.requestBody).toEqual({
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['a'],
            properties: {
              a: { type: ['integer', 'null'], format: 'int32', 'x-pg-type': 'int4' },
              b: { type: ['integer', 'null'], format: 'int32', 'x-pg-type': 'int4', description: 'Has a default.' },
            },
            additionalProperties: false,
          },
        },
      },
    });
    expect(add.get?.parameters).toEqual([
      { name: 'a', in: 'query', required: true, description: 'Argument `a` (int4).', schema: { type: 'integer', format: 'int32' } },
      { name: 'b', in: 'query', required: false, description: 'Argument `b` (int4).', schema: { type: 'integer', format: 'int32' } },
    ]);
    expect((add.post?.responses as Record<string, unknown>)['200']).toEqual({
      description: 'The result.',
      content: { 'application/json': { schema: { type: ['integer', 'null'], format: 'int32' } } },
    });
    const bump = document.paths['/rest/v1/rpc/bump'] as Record<string, Record<string, unknown>>;
    expect(Object.keys(bump)).toEqual(['post']);
    expect(bump.post?.['x-roles']).toEqual(['authenticated', 'service_role']);
    expect(Object.keys(bump.post?.responses as object)).toContain('204');
    expect(Object.keys(bump.post?.responses as object)).not.toContain('200');
    const mine = document.paths['/rest/v1/rpc/my_things'] as Record<string, Record<string, unknown>>;
    expect((mine.get?.responses as Record<string, unknown>)['206']).toMatchObject({
      content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/things' } } } },
    });
  });

  it('documents the auth endpoints of section 4.1', () => {
    expect(Object.keys(document.paths).filter((p) => p.startsWith('/auth/v1/')).sort()).toEqual([
      '/auth/v1/.well-known/jwks.json',
      '/auth/v1/.well-known/oauth-authorization-server',
      '/auth/v1/.well-known/openid-configuration',
      '/auth/v1/admin/generate_link',
      '/auth/v1/admin/oauth/clients',
      '/auth/v1/admin/oauth/clients/{client_id}',
      '/auth/v1/admin/oauth/clients/{client_id}/regenerate_secret',
      '/auth/v1/admin/users',
      '/auth/v1/admin/users/{id}',
      '/auth/v1/admin/users/{id}/factors',
      '/auth/v1/admin/users/{id}/factors/{factor_id}',
      '/auth/v1/admin/users/{id}/passkeys',
      '/auth/v1/admin/users/{id}/passkeys/{passkey_id}',
      '/auth/v1/authorize',
      '/auth/v1/callback',
      '/auth/v1/factors',
      '/auth/v1/factors/{factor_id}',
      '/auth/v1/factors/{factor_id}/challenge',
      '/auth/v1/factors/{factor_id}/verify',
      '/auth/v1/health',
      '/auth/v1/invite',
      '/auth/v1/logout',
      '/auth/v1/magiclink',
      '/auth/v1/oauth/authorizations/{authorization_id}',
      '/auth/v1/oauth/authorizations/{authorization_id}/consent',
      '/auth/v1/oauth/authorize',
      '/auth/v1/oauth/clients/register',
      '/auth/v1/oauth/token',
      '/auth/v1/oauth/userinfo',
      '/auth/v1/otp',
      '/auth/v1/passkeys',
      '/auth/v1/passkeys/authentication/options',
      '/auth/v1/passkeys/authentication/verify',
      '/auth/v1/passkeys/registration/options',
      '/auth/v1/passkeys/registration/verify',
      '/auth/v1/passkeys/{passkey_id}',
      '/auth/v1/reauthenticate',
      '/auth/v1/recover',
      '/auth/v1/resend',
      '/auth/v1/reset',
      '/auth/v1/settings',
      '/auth/v1/signup',
      '/auth/v1/token',
      '/auth/v1/user',
      '/auth/v1/user/identities/authorize',
      '/auth/v1/user/identities/{identity_id}',
      '/auth/v1/user/oauth/grants',
      '/auth/v1/verify',
    ]);
    expect(document.paths['/auth/v1/oauth/token']?.post?.requestBody).toMatchObject({
      content: { 'application/x-www-form-urlencoded': { schema: { required: ['grant_type'] } }, 'application/json': { schema: { required: ['grant_type'] } } },
    });
    expect(document.paths['/auth/v1/passkeys/authentication/verify']?.post?.requestBody).toMatchObject({
      content: { 'application/json': { schema: { required: ['challenge_id', 'credential'], properties: { challenge_id: { format: 'uuid' }, credential: { type: 'object' } } } } },
    });
    expect(Object.keys(document.paths['/auth/v1/passkeys/authentication/options']?.post?.responses as object)).toEqual(['200', '401', '404', '429']);
    expect(document.paths['/auth/v1/factors/{factor_id}/verify']?.post?.requestBody).toMatchObject({
      content: { 'application/json': { schema: { properties: { webauthn: { required: ['type', 'credential_response'], properties: { type: { enum: ['create', 'request'] } } } } } } },
    });
    expect(document.paths['/auth/v1/signup']?.post?.requestBody).toMatchObject({
      content: { 'application/json': { schema: { required: [], properties: { password: { minLength: 6 }, code_challenge_method: { enum: ['s256', 'plain'] } } } } },
    });
  });
});

describe('a project exposing several schemas', () => {
  const office = 'Back "Office"';
  const several: SchemaModel = {
    ...sample,
    schemas: ['public', office],
    relations: [
      ...sample.relations,
      // The same name as a public table: each schema's document has its own /rest/v1/things.
      table('things', { schema: office, columns: [column('id', int4), column('label', text, { nullable: true })] }),
      table('ledger', { schema: office, comment: 'Entries.', primaryKey: null, updatable: { insert: false, update: false, delete: false } }),
    ],
    functions: [
      ...sample.functions,
      fn('close_books', { schema: office, returnType: type('void', 'pseudo') }),
      fn('balance', { schema: office, volatility: 'stable' }),
    ],
  };
  const files = emitProject(several, { ref: 'sample' });
  const base = schemaFileBase(office);
  const main = JSON.parse(files.get('openapi.json') as string) as Doc & Record<string, unknown>;
  const other = JSON.parse(files.get(`openapi.${base}.json`) as string) as Doc & {
    info: { title: string; description: string };
    components: { parameters: Record<string, unknown> };
  } & Record<string, unknown>;

  it('emits a document and api types per further schema, under file names safe for any schema name', () => {
    expect(base).toMatch(/^back_office-[0-9a-f]{8}$/);
    expect([...files.keys()].filter((file) => /^(openapi|api)\./.test(file))).toEqual([
      `api.${base}.d.ts`,
      'api.d.ts',
      `openapi.${base}.json`,
      'openapi.json',
    ]);
    expect(files.get(`api.${base}.d.ts`)?.startsWith('// Generated by Gantry from the database of project "sample".')).toBe(true);
    expect(files.get(`api.${base}.d.ts`)).toContain('"/rest/v1/rpc/balance": {');
    expect(files.get(`api.${base}.d.ts`)).toContain('"Accept-Profile": "Back \\"Office\\"";');
    expect(emitProject(JSON.parse(JSON.stringify(several)) as SchemaModel, { ref: 'sample' })).toEqual(files);
  });

  it('has valid OpenAPI 3.1 documents, the default one as before plus the choice of schema on /openapi.json', async () => {
    await expect(SwaggerParser.validate(structuredClone(main) as never)).resolves.toMatchObject({ openapi: '3.1.0' });
    await expect(SwaggerParser.validate(structuredClone(other) as never)).resolves.toMatchObject({ openapi: '3.1.0' });
    const dataPaths = (paths: object): string[] => Object.keys(paths).filter((p) => p.startsWith('/rest/v1/')).sort();
    expect(dataPaths(main.paths)).toEqual(dataPaths(document.paths));
    expect(main.components.schemas).toEqual(document.components.schemas);
    expect(main['x-schema']).toBeUndefined();
    const openapi = main.paths['/openapi.json']?.get as { parameters: unknown[]; responses: Record<string, unknown> };
    const rest = 'without it the default schema `public`. Any other schema is refused with 406 `PGRST106`.';
    expect(openapi.parameters).toEqual([
      {
        name: 'Accept-Profile',
        in: 'header',
        required: false,
        description: `The exposed schema whose document is returned: \`public\`, \`Back "Office"\`; ${rest}`,
        schema: { type: 'string', enum: ['public', office] },
      },
      {
        name: 'profile',
        in: 'query',
        required: false,
        description: `The same as \`Accept-Profile\`, which wins when both are given; ${rest}`,
        schema: { type: 'string', enum: ['public', office] },
      },
    ]);
    expect(Object.keys(openapi.responses)).toEqual(['200', '401', '406']);
    expect((main as unknown as { info: { description: string } }).info.description).toContain(
      'The project exposes several schemas: this document covers the default one, `public`; the others (`Back "Office"`) have their own documents',
    );
  });

  it('documents the tables, views and functions of the further schema, each operation with its required profile header', () => {
    expect(other['x-schema']).toBe(office);
    expect(other.info.title).toBe('sample API, schema Back "Office"');
    expect(Object.keys(other.paths)).toEqual(['/rest/v1/ledger', '/rest/v1/rpc/balance', '/rest/v1/rpc/close_books', '/rest/v1/things']);
    expect(Object.keys(other.components.schemas)).toEqual(['Error', 'ledger', 'things', 'things.Insert', 'things.Update']);
    expect(other.components.parameters['Accept-Profile']).toEqual({
      name: 'Accept-Profile',
      in: 'header',
      required: true,
      description:
        'Selects the schema `Back "Office"` for reads (GET, HEAD). Without it the data API uses the default schema `public`; ' +
        'a schema that is not exposed is refused with 406 `PGRST106`.',
      schema: { type: 'string', enum: [office], default: office },
    });
    expect(other.components.parameters['Content-Profile']).toMatchObject({ name: 'Content-Profile', in: 'header', required: true, schema: { enum: [office], default: office } });
    const headers: Record<string, string> = {};
    for (const [path, item] of Object.entries(other.paths)) {
      for (const method of ['get', 'post', 'patch', 'put', 'delete']) {
        const operation = item[method] as { parameters: { $ref: string }[] } | undefined;
        if (operation) headers[`${method} ${path}`] = (operation.parameters[0] as { $ref: string }).$ref;
      }
    }
    const accept = '#/components/parameters/Accept-Profile';
    const content = '#/components/parameters/Content-Profile';
    expect(headers).toEqual({
      'get /rest/v1/ledger': accept,
      'get /rest/v1/things': accept,
      'post /rest/v1/things': content,
      'patch /rest/v1/things': content,
      'put /rest/v1/things': content,
      'delete /rest/v1/things': content,
      'get /rest/v1/rpc/balance': accept,
      'post /rest/v1/rpc/balance': content,
      'post /rest/v1/rpc/close_books': content,
    });
    expect(other.info.description).toContain('`Accept-Profile: Back "Office"` for GET and HEAD, `Content-Profile: Back "Office"` for POST, PATCH, PUT and DELETE');
    expect(other.info.description).toContain('| `rpc/balance` | execute | execute | execute | as the caller |');
  });
});

describe('api.d.ts', () => {
  it('is exactly what openapiTS() prints for the document', async () => {
    const text = JSON.parse(openApiText(document as unknown as Record<string, unknown>)) as Record<string, unknown>;
    expect(openApiTypes(text)).toBe(astToString(await openapiTS(structuredClone(text) as never, OPENAPI_TS_OPTIONS)));
  });
});

describe('type mapping', () => {
  it('resolves domains and arrays, and adds null through type arrays', () => {
    const domain = type('email', 'domain', { base: text });
    expect(typeSchema(type('_email', 'array', { element: domain }), sample)).toEqual({ type: 'array', items: { type: 'string' } });
    expect(nullable({ $ref: '#/components/schemas/x' }, true)).toEqual({ anyOf: [{ $ref: '#/components/schemas/x' }, { type: 'null' }] });
    expect(nullable({}, true)).toEqual({});
  });

  it('reads constant defaults and leaves computed ones out', () => {
    expect(defaultValue('0', { type: 'integer' })).toBe(0);
    expect(defaultValue('(-1)', { type: 'integer' })).toBe(-1);
    expect(defaultValue("'it''s'::text", { type: 'string' })).toBe("it's");
    expect(defaultValue('9223372036854775807', { type: 'integer' })).toBeUndefined();
    expect(defaultValue('1.50', { type: 'number' })).toBe(1.5);
    expect(defaultValue('now()', { type: 'string' })).toBeUndefined();
    expect(defaultValue("nextval('s'::regclass)", { type: 'integer' })).toBeUndefined();
    expect(defaultValue("'[1,2]'::jsonb", {})).toEqual([1, 2]);
  });
});

describe('tags of relations named like Object.prototype members', () => {
  it('get their kind appended (Swagger UI drops the operations of a tag named __proto__ or constructor); other names stay as they are', () => {
    const hostile = buildOpenApiDocument(planProject(model([
      table('__proto__'),
      table('constructor', { kind: 'view' }),
      table('toString'),
      table('plain'),
    ]), 'hostile')) as unknown as { tags: { name: string }[]; paths: Record<string, Record<string, { tags: string[] }>> };
    expect(hostile.tags.map((tag) => tag.name).slice(0, 4)).toEqual(['__proto__ (table)', 'constructor (view)', 'toString (table)', 'plain']);
    expect(hostile.paths['/rest/v1/__proto__']?.get?.tags).toEqual(['__proto__ (table)']);
    expect(hostile.paths['/rest/v1/constructor']?.get?.tags).toEqual(['constructor (view)']);
    expect(hostile.paths['/rest/v1/plain']?.get?.tags).toEqual(['plain']);
  });
});
