import { parseArgs } from 'node:util';
import { loadConfig } from '../runtime/config.js';
import { assertValidRef, deleteProject, readSchemaFiles } from '../runtime/platform/bootstrap.js';
import { projectKeys } from '../runtime/platform/keys.js';
import { Platform } from '../runtime/platform/platform.js';
import { displaySettings, parseSetting, settingLines } from '../runtime/platform/settings.js';
import { isAccessTokenAlg, type AccessTokenAlg, type SigningAlg } from '../runtime/tokens/keyring.js';
import {
  currentSigningKey,
  DEFAULT_ROTATION_GRACE_SECONDS,
  DEFAULT_SIGNING_ALG,
  generateSigningKey,
  rotateSigningKey,
} from '../runtime/platform/signing-keys.js';
import { removeGenerated } from '../generator/write.js';
import { type Output } from './output.js';
import { withPlatform } from './platform-session.js';
import { CliError } from '../generator/command-error.js';

async function requireProject(platform: Platform, ref: string | undefined) {
  if (!ref) throw new CliError('usage', 'a project ref is required');
  assertValidRef(ref);
  const record = await platform.getProject(ref);
  if (!record) throw new CliError('project_not_found', `project "${ref}" does not exist`);
  return record;
}

export async function projectCommand(args: string[], out: Output): Promise<void> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      schema: { type: 'string', multiple: true },
      autoconfirm: { type: 'boolean' },
      set: { type: 'string', multiple: true },
      grace: { type: 'string' },
      alg: { type: 'string' },
      'signing-alg': { type: 'string' },
      cluster: { type: 'string' },
      to: { type: 'string' },
      confirm: { type: 'boolean' },
    },
  });
  const ref = positionals[0];
  const config = loadConfig();

  switch (sub) {
    case 'create': {
      if (!ref) throw new CliError('usage', CREATE_USAGE);
      assertValidRef(ref);
      const signingAlg = createSigningAlg(values['signing-alg']);
      const schemaFiles = await readSchemaFiles(values.schema ?? []);
      const created = await withPlatform(async (platform) => {
        const { createProjectWithHistory } = await import('../generator/migrations/create.js');
        // An unknown --cluster is refused before anything is created.
        if (values.cluster !== undefined) platform.clusterNamed(values.cluster);
        const { record } = await createProjectWithHistory(platform, { ref, schemaFiles, autoconfirm: values.autoconfirm ? true : undefined, signingAlg, cluster: values.cluster });
        const { generateProject } = await import('../generator/generate.js');
        await generateProject(platform, record);
        return { keys: projectKeys(config, record), cluster: record.cluster };
      });
      // The JSON object is the contract's, exactly: `project list` tells the cluster.
      out.result(created.keys, `created project ${created.keys.ref} on cluster ${created.cluster}\n  url:         ${created.keys.url}\n  anon_key:    ${created.keys.anon_key}\n  service_key: ${created.keys.service_key}`);
      return;
    }
    case 'list': {
      const projects = await withPlatform((platform) => platform.listProjects());
      const list = projects.map((p) => ({
        ref: p.ref,
        url: projectKeys(config, p).url,
        created_at: p.createdAt.toISOString(),
        settings: displaySettings(p.settings),
        cluster: p.cluster,
        moving_to: p.movingTo,
        moved_from: p.movedFrom,
      }));
      out.result({ projects: list }, list.length ? list.map((p) => `${p.ref}\t${p.url}\t${p.cluster}`).join('\n') : 'no projects');
      return;
    }
    case 'keys': {
      if (positionals[0] === 'rotate') {
        await rotateKeys(positionals[1], values, out);
        return;
      }
      const keys = await withPlatform(async (platform) => projectKeys(config, await requireProject(platform, ref)));
      out.result(keys, `url:         ${keys.url}\nanon_key:    ${keys.anon_key}\nservice_key: ${keys.service_key}\njwt_secret:  ${keys.jwt_secret}`);
      return;
    }
    case 'delete': {
      await withPlatform(async (platform) => {
        await requireProject(platform, ref);
        await deleteProject(platform, ref!);
        await removeGenerated(platform.config, ref!);
      });
      out.result({ ref, deleted: true }, `deleted project ${ref}`);
      return;
    }
    case 'config': {
      const sets = values.set ?? [];
      const file = config.configFile;
      // A project gantry.toml declares keeps its settings there: --set writes the file, then applies it.
      const inFile = sets.length > 0 && file !== null && file.projects.some((p) => p.ref === ref);
      const assignments = inFile ? [] : sets.map(parseSetting);
      const { configureProject } = await import('../generator/settings/project-config.js');
      const { setInConfigFile } = await import('../generator/settings/config-set.js');
      const { record, generated, written } = await withPlatform(async (platform) => {
        const project = await requireProject(platform, ref);
        return inFile ? setInConfigFile(platform, project, file, sets, process.env) : { ...(await configureProject(platform, project, assignments)), written: [] };
      });
      const settings = displaySettings(record.settings);
      const lines = settingLines(record.settings);
      if (generated) lines.push(`regenerated ${generated.changed.length} file(s), removed ${generated.removed.length}`);
      if (written.length > 0) lines.push(`wrote to ${file!.path} [projects.${ref}.settings]:`, ...written.map((line) => `  ${line}`));
      out.result({ ref, settings, ...(generated ? { generated } : {}), ...(inFile ? { written: { file: file!.path, lines: written } } : {}) }, lines.join('\n'));
      return;
    }
    case 'move': {
      const { moveCommand } = await import('./project-move.js');
      await moveCommand(ref, values, out);
      return;
    }
    default:
      throw new CliError('usage', 'usage: gantry project create|list|keys|delete|config|move ...');
  }
}

const CREATE_USAGE = 'usage: gantry project create <ref> [--schema FILE.sql ...] [--autoconfirm] [--signing-alg HS256|ES256|RS256] [--cluster NAME]';

function createSigningAlg(raw: string | undefined): AccessTokenAlg | undefined {
  if (raw === undefined || isAccessTokenAlg(raw)) return raw;
  throw new CliError('usage', `--signing-alg expects HS256, ES256 or RS256, got "${raw}"`);
}

const ROTATE_USAGE = 'usage: gantry project keys rotate <ref> [--grace SECONDS] [--alg ES256|RS256]';

function graceSeconds(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_ROTATION_GRACE_SECONDS;
  if (!/^\d{1,9}$/.test(raw)) throw new CliError('usage', `--grace expects a whole number of seconds, got "${raw}"`);
  return Number(raw);
}

function rotationAlg(raw: string | undefined): SigningAlg | undefined {
  if (raw === undefined || raw === 'ES256' || raw === 'RS256') return raw;
  throw new CliError('usage', `--alg expects ES256 or RS256, got "${raw}"`);
}

/**
 * A new current signing key, which signs access tokens from now on (an HS256 project switches
 * to it); without --alg it keeps the current key's algorithm, or takes ES256 when there is none.
 * The key it replaces verifies for the grace period (default: one access-token lifetime).
 */
async function rotateKeys(ref: string | undefined, options: { grace?: string; alg?: string }, out: Output): Promise<void> {
  if (!ref) throw new CliError('usage', ROTATE_USAGE);
  assertValidRef(ref);
  const grace = graceSeconds(options.grace);
  const asked = rotationAlg(options.alg);
  const rotation = await withPlatform(async (platform) => {
    const record = await requireProject(platform, ref);
    const key = await generateSigningKey(asked ?? currentSigningKey(record.signingKeys)?.alg ?? DEFAULT_SIGNING_ALG);
    return rotateSigningKey(platform.pool, ref, key, grace);
  });
  if (!rotation) throw new CliError('project_not_found', `project "${ref}" does not exist`);
  const lines = [`project ${ref} signs with ${rotation.current.alg} key ${rotation.current.kid}`];
  for (const previous of rotation.previous) lines.push(`  ${previous.kid} (${previous.alg}) verifies until ${previous.expires_at}`);
  out.result({ ...rotation, grace_seconds: grace }, lines.join('\n'));
}
