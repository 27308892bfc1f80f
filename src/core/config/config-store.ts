import type Conf from 'conf';

// Stored profiles, in the XDG config directory (or PAYREC_CONFIG_DIR), file mode 0600.
// conf is loaded lazily: most runs take their key from the environment and never
// need it, and --help/--version must start fast.

export interface Profile {
  chain?: string;
  baseUrl?: string;
  apiKey?: string;
}

export interface StoredConfig {
  currentProfile?: string;
  profiles?: Record<string, Profile>;
}

export class ConfigStore {
  private conf?: Conf<StoredConfig>;

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  private async open(): Promise<Conf<StoredConfig>> {
    if (!this.conf) {
      const { default: ConfClass } = await import('conf');
      this.conf = new ConfClass<StoredConfig>({
        projectName: 'payrec',
        projectSuffix: '',
        cwd: this.env.PAYREC_CONFIG_DIR || undefined,
        configName: 'config',
        configFileMode: 0o600,
        // Profile names may contain dots; they are keys, not paths.
        accessPropertiesByDotNotation: false,
      });
    }
    return this.conf;
  }

  async path(): Promise<string> {
    return (await this.open()).path;
  }

  async read(): Promise<StoredConfig> {
    return (await this.open()).store;
  }

  async currentProfileName(): Promise<string> {
    return (await this.read()).currentProfile ?? 'default';
  }

  async profile(name: string): Promise<Profile | undefined> {
    return (await this.read()).profiles?.[name];
  }

  async saveProfile(name: string, profile: Profile): Promise<void> {
    const conf = await this.open();
    const profiles = { ...(conf.get('profiles') ?? {}) };
    profiles[name] = profile;
    conf.set('profiles', profiles);
  }

  async removeProfile(name: string): Promise<boolean> {
    const conf = await this.open();
    const profiles = { ...(conf.get('profiles') ?? {}) };
    if (!(name in profiles)) return false;
    delete profiles[name];
    conf.set('profiles', profiles);
    return true;
  }

  async setCurrentProfile(name: string): Promise<void> {
    (await this.open()).set('currentProfile', name);
  }
}
