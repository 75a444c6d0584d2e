import type { ProjectMeta } from '../metadata.js';
import type { ApiRequest } from '../parse/ast.js';
import { buildRead } from './read.js';
import { buildRpc } from './rpc.js';
import type { BuildOptions, BuiltStatement } from './statement.js';
import { buildDelete, buildInsert, buildUpdate } from './write.js';

/** The one statement of a parsed request; the entry point the HTTP layer calls. */
export function buildStatement(req: ApiRequest, meta: ProjectMeta, options: BuildOptions = {}): BuiltStatement {
  switch (req.action) {
    case 'read': return buildRead(req, meta, options);
    case 'insert': return buildInsert(req, meta, options);
    case 'update': return buildUpdate(req, meta, options);
    case 'delete': return buildDelete(req, meta, options);
    case 'call': return buildRpc(req, meta, options);
  }
}
