import { describe, expect, it } from 'vitest';
import { requireDocsKey } from '../../../runtime/docs/api-key.js';
import { documentFor, projectUrlFor, servedDocument, type OpenApiDocuments } from '../../../runtime/docs/document.js';
import { signApiKey } from '../../../runtime/tokens/jwt.js';

const fallback = { url: 'http://127.0.0.1:54321', explicit: false };

describe('projectUrlFor', () => {
  it('uses the origin the client reached', () => {
    expect(projectUrlFor({ protocol: 'http', host: 'localhost:8080' }, fallback, 'demo')).toBe('http://localhost:8080/v1/demo');
    expect(projectUrlFor({ protocol: 'http', host: '[::1]:8080' }, fallback, 'demo')).toBe('http://[::1]:8080/v1/demo');
  });

  it('prefers an explicit PUBLIC_URL, and falls back to it for a missing or malformed Host', () => {
    expect(projectUrlFor({ protocol: 'http', host: 'internal:8080' }, { url: 'https://api.example.com/', explicit: true }, 'demo')).toBe(
      'https://api.example.com/v1/demo',
    );
    expect(projectUrlFor({ protocol: 'http', host: undefined }, fallback, 'demo')).toBe('http://127.0.0.1:54321/v1/demo');
    expect(projectUrlFor({ protocol: 'http', host: 'evil.com/"><script>' }, fallback, 'demo')).toBe('http://127.0.0.1:54321/v1/demo');
  });
});

describe('servedDocument', () => {
  it('replaces the servers and keeps everything else', () => {
    const document = { openapi: '3.1.0', servers: [{ url: '{origin}/v1/demo' }], paths: {} };
    expect(JSON.parse(servedDocument({ ref: 'demo', document }, 'http://h:1/v1/demo'))).toEqual({
      openapi: '3.1.0',
      servers: [{ url: 'http://h:1/v1/demo', description: 'Project demo' }],
      paths: {},
    });
  });
});

describe('documentFor', () => {
  const main = { ref: 'demo', document: { info: { title: 'main' } } };
  const extra = { ref: 'demo', document: { info: { title: 'extra' }, 'x-schema': 'extra' } };
  const openapi: OpenApiDocuments = { ref: 'demo', schemas: ['public', 'extra', 'ungenerated'], main, others: new Map([['extra', extra]]) };

  it('picks the document of the schema Accept-Profile names, else ?profile=, else the default', () => {
    expect(documentFor(openapi, {}, undefined)).toEqual({ schema: 'public', document: main });
    expect(documentFor(openapi, { 'accept-profile': 'public' }, undefined)).toEqual({ schema: 'public', document: main });
    expect(documentFor(openapi, { 'accept-profile': ' extra ' }, undefined)).toEqual({ schema: 'extra', document: extra });
    expect(documentFor(openapi, {}, 'extra')).toEqual({ schema: 'extra', document: extra });
    expect(documentFor(openapi, { 'accept-profile': '' }, 'extra')).toEqual({ schema: 'extra', document: extra });
    expect(documentFor(openapi, { 'accept-profile': 'public' }, 'extra')).toEqual({ schema: 'public', document: main });
    expect(documentFor(openapi, {}, ['extra', 'public'])).toEqual({ schema: 'public', document: main });
    expect(documentFor(openapi, {}, 'ungenerated')).toEqual({ schema: 'ungenerated', document: null });
  });

  it('refuses a schema that is not exposed with 406 PGRST106, and serves the main document when the exposed schemas are unknown', () => {
    const refused = { status: 406, code: 'PGRST106', message: 'Invalid schema: auth', hint: 'Only the following schemas are exposed: public, extra, ungenerated' };
    expect(() => documentFor(openapi, { 'accept-profile': 'auth' }, undefined)).toThrow(expect.objectContaining(refused));
    expect(() => documentFor(openapi, {}, 'auth')).toThrow(expect.objectContaining(refused));
    expect(documentFor({ ...openapi, schemas: [] }, { 'accept-profile': 'auth' }, undefined)).toEqual({ schema: null, document: main });
  });
});

describe('requireDocsKey', () => {
  const secret = 'a-project-secret-that-is-long-enough';
  const anon = signApiKey(secret, 'anon', 'demo', Math.floor(Date.now() / 1000));

  it('accepts a key of the project from the query or the header and tells its role', () => {
    expect(requireDocsKey(anon, undefined, secret)).toEqual({ key: anon, role: 'anon' });
    expect(requireDocsKey(undefined, anon, secret)).toEqual({ key: anon, role: 'anon' });
  });

  it('refuses a missing or foreign key with 401', () => {
    expect(() => requireDocsKey(undefined, undefined, secret)).toThrow(expect.objectContaining({ status: 401, code: 'PGRST302' }));
    expect(() => requireDocsKey(['a', 'b'], undefined, secret)).toThrow(expect.objectContaining({ status: 401, code: 'PGRST302' }));
    const foreign = signApiKey('another-secret-that-is-long-enough-x', 'anon', 'demo', Math.floor(Date.now() / 1000));
    expect(() => requireDocsKey(foreign, undefined, secret)).toThrow(expect.objectContaining({ status: 401, code: 'PGRST301' }));
  });
});
