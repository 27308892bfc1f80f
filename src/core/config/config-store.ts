import type Conf from 'conf';
import { lstat, mkdir, readFile, readlink, realpath, rm, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UsageError } from '../runtime/errors.js';
import { printable } from '../output/sanitize.js';
import { changeableAbove, othersCanChange, shellWord, unwritable } from '../runtime/trust.js';
import { grouped } from '../output/grouped.js';

// Stored profiles, in the XDG config directory (or PAYREC_CONFIG_DIR), file mode 0600.
// The file holds the API key, so it is inspected before anything in it is used: it
// must be a payrec config (messages about it never quote it: the key could be in the
// part they would quote) and nobody but its owner may be able to change it (else
// anyone could point baseUrl at their own server and collect the key), as ssh does.
// conf writes it (atomically, 0600); it is loaded lazily, like this module's readers:
// most runs take their key from the environment and never need the file.

export interface Profile {
  chain?: string;
  baseUrl?: string;
  apiKey?: string;
  /** The service the key was stored for, when `config set base-url` moved the profile elsewhere since. */
  keyBaseUrl?: string;
  /** The chain's JSON-RPC URL per chain (payrec config set rpc): a secret, as providers put keys in it. */
  rpc?: Record<string, string>;
  /** Defaults of this profile's runs, below their flags and variables (payrec config set). */
  tz?: string;
  format?: string;
  db?: string;
  timeout?: string;
  retries?: string;
  /** --currency of every list (payrec config set currency): an ISO 4217 code. */
  currency?: string;
  /** Chainlink feed proxies per chain and token (payrec config set feed TOKEN ADDRESS), over ONCHAIN §10's. */
  feeds?: Record<string, Record<string, string>>;
  /** The most pages in flight when payrec finds the pace itself. */
  concurrency?: string;
  /**
   * Fixed-recurring plan ids added with `payrec fr plans add`, per service: the chain's
   * name (`bsc`) for the profile's own service, `emulator:bsc` for --emulator's demo
   * data. The API lists no plans: a plan no short url names is known only so.
   */
  plans?: Record<string, string[]>;
}

/** The settings a profile keeps for every run besides where it sends requests: flag > env > profile > default. */
export type RunDefaults = Pick<Profile, 'tz' | 'format' | 'db' | 'timeout' | 'retries' | 'currency' | 'concurrency'>;

export interface StoredConfig {
  currentProfile?: string;
  profiles?: Record<string, Profile>;
}

/**
 * Why the config file cannot be used: `unreadable` (not a file, not JSON, not a payrec
 * config) or `untrusted` (others can change it). Exit 2: a bad local config.
 */
export class ConfigFileError extends UsageError {
  constructor(
    readonly kind: 'unreadable' | 'untrusted',
    message: string,
    hint: string,
  ) {
    super(message, hint);
  }
}

/** Larger than any config payrec writes; a bigger file is not read at all. */
const MAX_CONFIG_BYTES = 1024 * 1024;

interface Inspection {
  data: StoredConfig;
  problem?: ConfigFileError;
}

export class ConfigStore {
  private conf?: Conf<StoredConfig>;
  private inspection?: Promise<Inspection>;

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  /** The config file (it may not exist yet). */
  async path(): Promise<string> {
    const dir = this.env.PAYREC_CONFIG_DIR || (await import('env-paths')).default('payrec', { suffix: '' }).config;
    return join(dir, 'config.json');
  }

  /** The stored config; throws a ConfigFileError when it cannot be used (`untrusted` allowed: for removing a key). */
  async read(o: { untrusted?: 'allow' } = {}): Promise<StoredConfig> {
    const { data, problem } = await this.inspect();
    if (problem && !(problem.kind === 'untrusted' && o.untrusted === 'allow')) throw problem;
    return data;
  }

  /** Why the config file cannot be used, if it cannot: for the commands that work around it. */
  async problem(): Promise<ConfigFileError | undefined> {
    return (await this.inspect()).problem;
  }

  async currentProfileName(): Promise<string> {
    return (await this.read()).currentProfile ?? 'default';
  }

  async profile(name: string): Promise<Profile | undefined> {
    const profiles = (await this.read()).profiles;
    return profiles && Object.hasOwn(profiles, name) ? profiles[name] : undefined;
  }

  /**
   * The run defaults of the profile a run uses (--profile, PAYREC_PROFILE, the current
   * one), named with the profile; none when the config cannot be used (the commands that
   * need it say why).
   */
  async runDefaults(flagProfile: string | undefined, env: NodeJS.ProcessEnv): Promise<{ profile: string; defaults: RunDefaults }> {
    if (await this.problem()) return { profile: '', defaults: {} };
    const name = flagProfile ?? (env.PAYREC_PROFILE || (await this.currentProfileName()));
    const { tz, format, db, timeout, retries, currency, concurrency } = (await this.profile(name)) ?? {};
    return { profile: name, defaults: { tz, format, db, timeout, retries, currency, concurrency } };
  }

  async saveProfile(name: string, profile: Profile, o: { untrusted?: 'allow' } = {}): Promise<void> {
    const profiles = { ...(await this.read(o)).profiles };
    profiles[name] = profile;
    await this.write('profiles', profiles);
  }

  async setCurrentProfile(name: string): Promise<void> {
    await this.read();
    await this.write('currentProfile', name);
  }

  /**
   * Removes the config file, every profile with it: the way out of a file payrec cannot
   * read (`auth logout`). A link is removed, never what it points to.
   */
  async removeFile(): Promise<void> {
    const path = await this.path();
    await rm(path, { force: true }).catch((err: NodeJS.ErrnoException) => {
      throw unwritable(err, `cannot remove the config file ${printable(path)}`, 'remove it yourself, or make its folder writable');
    });
    this.inspection = undefined;
  }

  private async write<K extends keyof StoredConfig>(key: K, value: StoredConfig[K]): Promise<void> {
    const path = await this.path();
    try {
      await this.writeTo(path, key, value);
    } catch (err) {
      // A read-only home or a path through a file: the user's setup (exit 2), with the way out.
      throw unwritable(err as NodeJS.ErrnoException, `cannot write the config file ${printable(path)}`, 'set PAYREC_CONFIG_DIR to a folder you can write');
    }
    this.inspection = undefined;
  }

  private async writeTo<K extends keyof StoredConfig>(path: string, key: K, value: StoredConfig[K]): Promise<void> {
    if (!this.conf) {
      // Only its owner may enter the folder payrec creates (conf would create it 0777 & ~umask).
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      // A link (a dotfiles manager's) stays a link: the file it points to is the one rewritten.
      const file = await realpath(path).catch(() => path);
      const { default: ConfClass } = await import('conf');
      this.conf = new ConfClass<StoredConfig>({
        projectName: 'payrec',
        projectSuffix: '',
        cwd: dirname(file),
        configName: basename(file),
        fileExtension: '',
        configFileMode: 0o600,
        // Profile names may contain dots; they are keys, not paths.
        accessPropertiesByDotNotation: false,
      });
    }
    this.conf.set(key, value);
  }

  private inspect(): Promise<Inspection> {
    this.inspection ??= this.path().then(inspectConfig);
    return this.inspection;
  }
}

/** Reads and checks the config file at `path`; never quotes what it holds. */
async function inspectConfig(path: string): Promise<Inspection> {
  const empty: StoredConfig = {};
  let denied = false;
  const link = await lstat(path).catch((err: NodeJS.ErrnoException) => {
    // ENOTDIR: a folder on the way is a file; no config there either (writing one says why it cannot).
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return undefined;
    // A folder on the way this user may not enter: whatever is there cannot be read, and is left out.
    if (err.code === 'EACCES' || err.code === 'EPERM') return (denied = true), undefined;
    throw err;
  });
  if (denied) {
    return {
      data: empty,
      problem: new ConfigFileError('unreadable', `the config file ${printable(path)} cannot be reached: permission denied (EACCES) on a folder on its way`, 'set PAYREC_CONFIG_DIR to a folder you can write'),
    };
  }
  const folderProblem = await untrustedFolder(dirname(path));
  if (!link) return { data: empty, problem: folderProblem };
  const target = link.isSymbolicLink() ? await readlink(path).catch(() => '?') : undefined;
  const named = `the config file ${printable(path)}${target === undefined ? '' : ` (a link to ${printable(target)})`}`;
  const unreadable = (why: string) => ({
    data: empty,
    problem: new ConfigFileError('unreadable', `${named} ${why}`, `fix it, or remove it with: payrec auth logout (then payrec auth login)`),
  });

  let file: Stats;
  try {
    file = await stat(path);
  } catch (err) {
    return unreadable(`cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  // A link to a device or a pipe would never end; a folder is not a file.
  if (!file.isFile()) return unreadable('is not a regular file');
  if (file.size > MAX_CONFIG_BYTES) return unreadable(`is ${grouped(file.size)} bytes, too large to be a payrec config`);

  const fileProblem = untrustedEntry(file, path, 'file');
  const untrusted = both(fileProblem, target === undefined ? folderProblem : await untrustedFolder(dirname(await realpath(path))));
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    return unreadable(`cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return unreadable(`is not valid JSON (${await syntaxErrorAt(text)})`);
  }
  if (!isPayrecConfig(data)) {
    return unreadable('is not a payrec config: expected {"currentProfile": NAME, "profiles": {NAME: {"chain", "baseUrl", "apiKey", "rpc": {CHAIN: URL}…}}} with text values (and "plans": {CHAIN: [plan ids]})');
  }
  return { data, problem: untrusted };
}

/** "line 1, column 34: a value was expected", from the first error jsonc-parser finds (loaded only here). */
async function syntaxErrorAt(text: string): Promise<string> {
  // Its ES module build: the package's main is a UMD build that requires files the bundle does not hold.
  const { parse, printParseErrorCode } = await import('jsonc-parser/lib/esm/main.js');
  const errors: import('jsonc-parser/lib/esm/main.js').ParseError[] = [];
  parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const offset = errors[0]?.offset ?? 0;
  const before = text.slice(0, offset).split('\n');
  const what = errors[0] ? printParseErrorCode(errors[0].error) : 'InvalidSymbol';
  // The code's words ("InvalidSymbol" → "invalid symbol"), never the text found there.
  return `line ${before.length}, column ${before.at(-1)!.length + 1}: ${what.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()}`;
}

const TOP_LEVEL_KEYS = new Set(['currentProfile', 'profiles', '__internal__']);
const PROFILE_KEYS = new Set(['chain', 'baseUrl', 'apiKey', 'keyBaseUrl', 'tz', 'format', 'db', 'timeout', 'retries', 'currency', 'concurrency']);
/** A plan id as `fr plans add` stores it (lower case): ids go into request paths. */
const STORED_PLAN_ID = /^0x[0-9a-f]{64}$/;

function isPayrecConfig(data: unknown): data is StoredConfig {
  if (!isObject(data) || Object.keys(data).some((k) => !TOP_LEVEL_KEYS.has(k))) return false;
  if (data.currentProfile !== undefined && typeof data.currentProfile !== 'string') return false;
  if (data.profiles === undefined) return true;
  if (!isObject(data.profiles)) return false;
  // `rpc` alone is a map: the chain's node per chain, each a text value.
  const rpcMap = (v: unknown) => isObject(v) && Object.values(v).every((u) => typeof u === 'string');
  return Object.values(data.profiles).every(
    (p) => isObject(p) && Object.entries(p).every(([k, v]) => (k === 'rpc' ? rpcMap(v) : k === 'feeds' ? isObject(v) && Object.values(v).every(rpcMap) : k === 'plans' ? isPlanLists(v) : PROFILE_KEYS.has(k) && typeof v === 'string')),
  );
}

function isPlanLists(v: unknown): boolean {
  return isObject(v) && Object.values(v).every((ids) => Array.isArray(ids) && ids.every((id) => typeof id === 'string' && STORED_PLAN_ID.test(id)));
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The trust check (runtime/trust.ts) in the config's words: the key is what is at stake. */
function untrustedEntry(s: Stats, path: string, what: 'file' | 'folder', above = ''): ConfigFileError | undefined {
  const kind = othersCanChange(s, what);
  if (!kind && what === 'file' && openToOthers(s)) {
    // As ssh refuses a private key with any group or other bit (a dotfiles checkout leaves 0644, a shared group 0640).
    const mode = (s.mode & 0o777).toString(8).padStart(4, '0');
    return new ConfigFileError(
      'untrusted',
      `the config file ${printable(path)} ${s.mode & 0o044 ? 'can be read by other users' : 'is open to other users'} (mode ${mode}): payrec does not use the key it holds until only you can read it`,
      `fix it with: chmod 600 ${shellWord(path)} (and if the key was exposed, make a new one)`,
    );
  }
  if (!kind) return undefined;
  const notOwn = kind === 'not-own';
  const fix = what === 'file' ? `chmod 600 ${shellWord(path)}` : `chmod go-w ${shellWord(path)}`;
  const why = notOwn ? `belongs to another user (uid ${s.uid})` : 'can be changed by other users';
  return new ConfigFileError(
    'untrusted',
    `the config ${what}${above} ${printable(path)} ${why}: payrec does not use the key it holds (anyone who can change it could send the key elsewhere)`,
    notOwn ? `make it yours (chown) or set PAYREC_CONFIG_DIR to a folder of yours` : `fix it with: ${fix}`,
  );
}

/** Any permission for the file's group or others (its owner's own group too: others may share it). POSIX only. */
function openToOthers(s: Stats): boolean {
  if (process.platform === 'win32' || typeof process.getuid !== 'function') return false;
  return (s.mode & 0o077) !== 0;
}

/** One error for a file and a folder that both need fixing: both commands in its hint. */
function both(file: ConfigFileError | undefined, folder: ConfigFileError | undefined): ConfigFileError | undefined {
  // A folder above is said on its own, once the file is fixed.
  if (!file || !folder || folder.message.includes('(a folder above it)')) return file ?? folder;
  return new ConfigFileError('untrusted', file.message.replace(/ (can be changed|belongs)/, ' and its folder $1'), `${file.hint}; ${(folder.hint ?? '').replace('fix it with: ', '')}`);
}

/** The config's folder, and the folders above it (a 0700 folder under a 0777 one can be renamed away and replaced), as the mirror's are checked. */
async function untrustedFolder(dir: string): Promise<ConfigFileError | undefined> {
  const s = await stat(dir).catch(() => undefined);
  const own = s ? untrustedEntry(s, dir, 'folder') : undefined;
  if (own) return own;
  const above = await changeableAbove(dir);
  return above ? untrustedEntry(above.stats, above.path, 'folder', ' (a folder above it)') : undefined;
}
