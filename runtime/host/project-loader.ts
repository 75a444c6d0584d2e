import fs from 'node:fs/promises';
import { builtinModules, createRequire } from 'node:module';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';
import type { ProjectDefinition } from '../rest/routes.js';

const RUNTIME_ID = 'gantry:runtime';
const nodeRequire = createRequire(import.meta.url);
const BUILTINS = new Set(builtinModules);

/**
 * Generated code (and a project's extensions) import the runtime's public entry by a relative path that ends in
 * `runtime/index.js` (wherever generated/ lives); bind it to the host's one instance.
 */
const runtimeAsExternal: Plugin = {
  name: 'gantry-runtime-external',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /(^|\/)runtime\/index(\.js)?$/ }, () => ({ path: RUNTIME_ID, external: true }));
  },
};

async function exists(file: string): Promise<boolean> {
  return fs.stat(file).then(() => true, () => false);
}

/**
 * Bundles a TypeScript entry with esbuild and evaluates it as a function, not imported as an ES module: ES module
 * records are never freed, so re-importing on every regeneration would leak, while
 * a replaced function is garbage-collected once in-flight requests finish. It may import the Gantry runtime and
 * Node's built-in modules; `what` names the code in errors. Returns its exports.
 */
export async function evaluateBundle(entry: string, runtime: Readonly<Record<string, unknown>>, what: string): Promise<Record<string, unknown>> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    logLevel: 'silent',
    plugins: [runtimeAsExternal],
  });
  const code = result.outputFiles[0]!.text;
  const module = { exports: {} as Record<string, unknown> };
  const requireShim = (id: string): unknown => {
    if (id === RUNTIME_ID) return runtime;
    if (id.startsWith('node:') || BUILTINS.has(id)) return nodeRequire(id);
    throw new Error(`${what} may import only the Gantry runtime and Node's built-in modules, not "${id}"`);
  };
  new Function('require', 'module', 'exports', code)(requireShim, module, module.exports);
  return module.exports;
}

/**
 * Loads a project's generated definition (metadata and route descriptors).
 * Returns null when the project has no generated code.
 */
export async function loadGeneratedDefinition(
  generatedDir: string,
  ref: string,
  runtime: Readonly<Record<string, unknown>>,
): Promise<ProjectDefinition | null> {
  const entry = path.join(generatedDir, ref, 'index.ts');
  if (!(await exists(entry))) return null;
  const { definition } = (await evaluateBundle(entry, runtime, `generated code for "${ref}"`)) as { definition?: ProjectDefinition };
  if (!definition || typeof definition.fingerprint !== 'string' || definition.ref !== ref) {
    throw new Error(`generated/${ref}/index.ts must export the definition of project "${ref}"`);
  }
  return definition;
}
