import { parseArgs } from 'node:util';
import { createApiKey, revokeApiKey } from '../runtime/calls/keys.js';
import { type Output } from './output.js';
import { withPlatform } from './platform-session.js';
import { CliError } from '../generator/command-error.js';

const USAGE = 'usage: gantry calls key create --tenant <id> | gantry calls key revoke <id>';

/** `gantry calls key create --tenant <id>` (the key is printed here and never again) and `calls key revoke <id>`. */
export async function callsCommand(args: string[], out: Output): Promise<void> {
  const [group, sub, ...rest] = args;
  if (group !== 'key') throw new CliError('usage', USAGE);
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { json: { type: 'boolean' }, tenant: { type: 'string' } } });
  switch (sub) {
    case 'create': {
      if (!values.tenant) throw new CliError('usage', USAGE);
      const created = await withPlatform((platform) => createApiKey(platform.pool, values.tenant!));
      out.result(created, `created API key ${created.id} for tenant ${created.tenant}\n  key: ${created.key}\n(the key is shown only now; store it safely)`);
      return;
    }
    case 'revoke': {
      const id = positionals[0];
      if (!id) throw new CliError('usage', USAGE);
      const revoked = await withPlatform((platform) => revokeApiKey(platform.pool, id));
      out.result(revoked, `revoked API key ${revoked.id} of tenant ${revoked.tenant}`);
      return;
    }
    default:
      throw new CliError('usage', USAGE);
  }
}
