import { builtinModules, createRequire } from 'node:module';
import { build, type Plugin } from 'esbuild';

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

