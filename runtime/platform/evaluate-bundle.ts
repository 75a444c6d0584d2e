import { builtinModules, createRequire, SourceMap, type SourceMapPayload } from 'node:module';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';

const RUNTIME_ID = 'gantry:runtime';
const nodeRequire = createRequire(import.meta.url);
const BUILTINS = new Set(builtinModules);
/** The stack-trace name of evaluated code, so its frames can be told from the host's. */
const BUNDLE_URL = 'gantry-bundle.js';
const BUNDLE_FRAME = /gantry-bundle\.js:(\d+):(\d+)/;
/** `new Function` puts its parameters and an opening line before the body. */
const FUNCTION_PREAMBLE_LINES = 2;

/**
 * Generated code and a project's extensions import the runtime's public entry as `gantry` (or, in Gantry's own
 * tests, by a path that ends in `runtime/index.js`); bind it to the host's one instance.
 */
const runtimeAsExternal: Plugin = {
  name: 'gantry-runtime-external',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^gantry$|(^|\/)runtime\/index(\.js)?$/ }, () => ({ path: RUNTIME_ID, external: true }));
  },
};

/** Where in its own source a bundle threw: an absolute file path, 1-based line and column. */
export interface SourceLocation {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/** Code that threw while it was evaluated; `location` is the throw site in its TypeScript source, when the stack shows it. */
export class BundleEvaluationError extends Error {
  constructor(
    readonly thrown: unknown,
    readonly location: SourceLocation | null,
  ) {
    super(thrown instanceof Error ? thrown.message : String(thrown), { cause: thrown });
    this.name = 'BundleEvaluationError';
  }
}

/** The throw site of `thrown` in the bundle's sources: its innermost stack frame in the bundle, mapped back. */
function throwSite(thrown: unknown, map: SourceMap, outdir: string): SourceLocation | null {
  const stack = thrown instanceof Error ? (thrown.stack ?? '') : '';
  const frame = BUNDLE_FRAME.exec(stack);
  if (!frame) return null;
  const entry = map.findEntry(Number(frame[1]) - 1 - FUNCTION_PREAMBLE_LINES, Number(frame[2]) - 1);
  if (!('originalSource' in entry)) return null;
  return { file: path.resolve(outdir, entry.originalSource), line: entry.originalLine + 1, column: entry.originalColumn + 1 };
}

/** A bundle's exports, and where in its sources an error it threw later (from a hook, a route) was thrown. */
export interface EvaluatedBundle {
  readonly exports: Record<string, unknown>;
  locate(thrown: unknown): SourceLocation | null;
}

/**
 * Bundles a TypeScript entry with esbuild and evaluates it as a function, not imported as an ES module: ES module
 * records are never freed, so re-importing on every regeneration would leak, while
 * a replaced function is garbage-collected once in-flight requests finish. It may import the Gantry runtime and
 * Node's built-in modules; `what` names the code in errors. Returns its exports; a throw while evaluating is a
 * BundleEvaluationError that says where in the source it was thrown.
 */
export async function evaluateBundle(entry: string, runtime: Readonly<Record<string, unknown>>, what: string): Promise<EvaluatedBundle> {
  const outdir = path.dirname(entry);
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    logLevel: 'silent',
    outfile: path.join(outdir, 'bundle.js'),
    sourcemap: 'external',
    sourcesContent: false,
    plugins: [runtimeAsExternal],
  });
  const output = (suffix: string): string => result.outputFiles.find((file) => file.path.endsWith(suffix))!.text;
  const code = `${output('.js')}\n//# sourceURL=${BUNDLE_URL}`;
  const module = { exports: {} as Record<string, unknown> };
  const requireShim = (id: string): unknown => {
    if (id === RUNTIME_ID) return runtime;
    if (id.startsWith('node:') || BUILTINS.has(id)) return nodeRequire(id);
    throw new Error(`${what} may import only the Gantry runtime and Node's built-in modules, not "${id}"`);
  };
  const map = new SourceMap(JSON.parse(output('.js.map')) as SourceMapPayload);
  try {
    new Function('require', 'module', 'exports', code)(requireShim, module, module.exports);
  } catch (thrown) {
    throw new BundleEvaluationError(thrown, throwSite(thrown, map, outdir));
  }
  return { exports: module.exports, locate: (thrown) => throwSite(thrown, map, outdir) };
}
