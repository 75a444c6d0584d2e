import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../runtime/config-error.js';
import { findConfigFile, parseConfigFile } from '../../runtime/config-file.js';
import { loadConfig } from '../../runtime/config.js';

const FILE = '/repo/gantry.toml';

describe('parseConfigFile', () => {
  it('reads projects sorted by ref, folders, and settings in both key forms, flat', () => {
    const parsed = parseConfigFile(
      `[paths]
generated = "db/generated"

[projects.shop.settings]
"auth.autoconfirm" = true
auth.rate_limit.otp = 40
"api.schemas" = ["public", "extra"]
"auth.site_url" = "https://shop.example"

[projects.blog]
`,
      FILE,
    );
    expect(parsed.path).toBe(FILE);
    expect(parsed.paths).toEqual({ generated: 'db/generated' });
    expect(parsed.projects.map((p) => p.ref)).toEqual(['blog', 'shop']);
    expect([...parsed.projects[0]!.settings]).toEqual([]);
    expect([...parsed.projects[1]!.settings]).toEqual([
      ['auth.autoconfirm', true],
      ['auth.rate_limit.otp', 40],
      ['api.schemas', 'public,extra'],
      ['auth.site_url', 'https://shop.example'],
    ]);
  });

  it('takes an empty file: no projects, default folders', () => {
    expect(parseConfigFile('# nothing yet\n', FILE)).toEqual({ path: FILE, paths: {}, projects: [] });
  });

  it.each([
    ['[projects.shop\n', `${FILE}: not valid TOML: line 1, column 15: `],
    ['[project.shop]\n', `${FILE}: unknown key "project" in the top level (known: paths, projects)`],
    ['[projects.Shop]\n', `${FILE}: project ref "Shop" must match ^[a-z][a-z0-9_]{2,39}$`],
    ['[projects.shop]\nsetting = 1\n', `${FILE}: unknown key "setting" in [projects.shop] (known: settings)`],
    ['[paths]\ngenerated = ""\n', `${FILE}: paths.generated must be a non-empty folder path`],
    ['[paths]\nhome = "x"\n', `${FILE}: unknown key "home" in [paths] (known: generated, migrations, extensions)`],
    ['projects = 1\n', `${FILE}: [projects] must hold one table per project, e.g. [projects.myapp]`],
    ['[projects.shop.settings]\n"a.b" = 1\na.b = 2\n', `${FILE}: setting "a.b" is given twice in [projects.shop.settings]`],
    ['[projects.shop.settings]\n"x" = 1979-05-27\n', `${FILE}: setting "x" in [projects.shop.settings] must be a string, a number, a boolean or a list of strings`],
    ['[projects.shop.settings]\n"x" = [1, 2]\n', `${FILE}: setting "x" in [projects.shop.settings] must be a string, a number, a boolean or a list of strings`],
  ])('refuses %j with a coded error naming the file', (text, message) => {
    let thrown: unknown;
    try {
      parseConfigFile(text, FILE);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).code).toBe('invalid_config');
    expect((thrown as ConfigError).message.startsWith(message)).toBe(true);
  });
});

describe('the project root', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
  });
  async function tempDir(): Promise<string> {
    const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-root-')));
    dirs.push(dir);
    return dir;
  }

  it('is the folder of the nearest gantry.toml upwards, and every folder resolves from it, not from the package', async () => {
    const root = await tempDir();
    await fs.writeFile(path.join(root, 'gantry.toml'), '[paths]\nmigrations = "db/migrations"\n\n[projects.shop]\n');
    const nested = path.join(root, 'src', 'app');
    await fs.mkdir(nested, { recursive: true });
    expect(findConfigFile(nested)).toBe(path.join(root, 'gantry.toml'));
    const config = loadConfig({}, nested);
    expect(config).toMatchObject({
      root,
      gantryHome: path.join(root, '.gantry'),
      generatedDir: path.join(root, 'generated'),
      migrationsDir: path.join(root, 'db/migrations'),
      extensionsDir: path.join(root, 'extensions'),
    });
    expect(config.configFile?.projects.map((p) => p.ref)).toEqual(['shop']);
  });

  it('is the current folder without a gantry.toml; the environment still wins', async () => {
    const cwd = await tempDir();
    expect(findConfigFile(cwd)).toBe(null);
    expect(loadConfig({}, cwd)).toMatchObject({ root: cwd, configFile: null, generatedDir: path.join(cwd, 'generated'), gantryHome: path.join(cwd, '.gantry') });
    const moved = loadConfig({ GANTRY_GENERATED_DIR: '/elsewhere/gen', GANTRY_HOME: '/var/lib/gantry' }, cwd);
    expect(moved).toMatchObject({ generatedDir: '/elsewhere/gen', migrationsDir: '/elsewhere/migrations', extensionsDir: '/elsewhere/extensions', gantryHome: '/var/lib/gantry' });
  });
});
