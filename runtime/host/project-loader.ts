import fs from 'node:fs/promises';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';
import type { ProjectDefinition } from '../rest/routes.js';

const RUNTIME_ID = 'gantry:runtime';

/**
 * Generated code imports the runtime's public entry by a relative path that ends in
 * `runtime/index.js` (wherever generated/ lives); bind it to the host's one instance.
 */
const runtimeAsExternal: Plugin = {
  name: 'gantry-runtime-external',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /(^|\/)runtime\/index(\.js)?$/ }, () => ({ path: RUNTIME_ID, external: true }));
  },
};

/**
 * Loads a project's generated definition (metadata and route descriptors). The generated TypeScript is bundled with
 * esbuild and evaluated as a function, not imported as an ES module: ES module
 * records are never freed, so re-importing on every regeneration would leak, while
 * a replaced function is garbage-collected once in-flight requests finish.
 * Returns null when the project has no generated code.
 */
export async function loadGeneratedDefinition(
  generatedDir: string,
  ref: string,
  runtime: Readonly<Record<string, unknown>>,
): Promise<ProjectDefinition | null> {
  const entry = path.join(generatedDir, ref, 'index.ts');
  if (!(await fs.stat(entry).then(() => true, () => false))) return null;
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
    throw new Error(`generated code for "${ref}" may import only the Gantry runtime, not "${id}"`);
  };
  new Function('require', 'module', 'exports', code)(requireShim, module, module.exports);
  const { definition } = module.exports as { definition?: ProjectDefinition };
  if (!definition || typeof definition.fingerprint !== 'string' || definition.ref !== ref) {
    throw new Error(`generated/${ref}/index.ts must export the definition of project "${ref}"`);
  }
  return definition;
}
