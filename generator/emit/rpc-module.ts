import { functionMeta } from '../model/project-meta.js';
import { docComment, Imports, printValue, sections, type Printable } from './code.js';
import { runtimeModule, type EmitContext, type FunctionModule } from './context.js';
import { functionSignatures } from './function-types.js';
import { fileHeader } from '../../runtime/generated-files.js';
import type { TypeContext } from './ts-types.js';

/** `rpc/<name>.ts`: the typed signatures and metadata of one function name (all overloads). */
export function emitRpcModule(context: EmitContext, module: FunctionModule): string {
  const imports = new Imports();
  const types: TypeContext = { model: context.model, uses: (name) => imports.add('../database.types.js', name, true) };
  const signature = functionSignatures(module.overloads, types, '', '  ');
  imports.add(runtimeModule, 'FunctionMeta', true);
  imports.add(runtimeModule, 'rpcRoutes', false);
  const metas = module.overloads.map((fn) => functionMeta(context.model, fn));
  const description = module.overloads
    .map((fn) => `${fn.schema}.${fn.name}(${fn.identityArguments}) ${fn.volatility}${fn.securityDefiner ? ', security definer' : ''}${fn.comment ? `: ${fn.comment}` : ''}`)
    .join('\n');
  return sections(
    fileHeader(context.ref),
    imports.print(),
    docComment(`Function ${description}`) + `export type Signature =${signature.startsWith('\n') ? '' : ' '}${signature};\n`,
    'export type Args = Signature["Args"];\n' + 'export type Returns = Signature["Returns"];\n',
    `export const meta: readonly FunctionMeta[] = ${printValue(metas as unknown as Printable)};\n`,
    '/** The RPC route of this function name. */\n' + 'export const routes = rpcRoutes<Signature>(meta);\n',
  );
}
