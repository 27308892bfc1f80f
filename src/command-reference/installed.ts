import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Shell } from './scripts.js';

// Where `payrec doctor` looks for an installed completion script: the places each
// shell loads completions from by default (the user's own first), and the start-up
// file a `source <(payrec completion SHELL)` line lives in. A script file that differs
// from what this payrec prints is out of date (a newer payrec has other flags).

export interface InstalledCompletion {
  shell: Shell;
  /** The file it was found in. */
  path: string;
  /** A script file (compared with the current one), or a start-up line that sources it (always current). */
  kind: 'script' | 'sourced';
  current: boolean;
}

function places(shell: Shell, env: NodeJS.ProcessEnv): { scripts: string[]; startup: string[] } {
  const home = env.HOME || homedir();
  const data = env.XDG_DATA_HOME || join(home, '.local', 'share');
  const config = env.XDG_CONFIG_HOME || join(home, '.config');
  if (shell === 'bash') {
    return {
      scripts: [join(data, 'bash-completion', 'completions', 'payrec'), '/usr/local/share/bash-completion/completions/payrec', '/usr/share/bash-completion/completions/payrec', '/etc/bash_completion.d/payrec'],
      startup: [join(home, '.bashrc'), join(home, '.bash_profile')],
    };
  }
  if (shell === 'zsh') {
    const zdot = env.ZDOTDIR || home;
    return {
      scripts: [join(zdot, '.zfunc', '_payrec'), join(data, 'zsh', 'site-functions', '_payrec'), '/usr/local/share/zsh/site-functions/_payrec', '/usr/share/zsh/site-functions/_payrec', '/usr/share/zsh/vendor-completions/_payrec'],
      startup: [join(zdot, '.zshrc')],
    };
  }
  return {
    scripts: [join(config, 'fish', 'completions', 'payrec.fish'), join(data, 'fish', 'vendor_completions.d', 'payrec.fish'), '/usr/local/share/fish/vendor_completions.d/payrec.fish', '/usr/share/fish/vendor_completions.d/payrec.fish'],
    startup: [join(config, 'fish', 'config.fish')],
  };
}

const read = (path: string) => readFile(path, 'utf8').catch(() => undefined);

/** The first place a shell would load payrec's completion from, if any; `script` is what this payrec prints for it. */
export async function installedCompletion(shell: Shell, env: NodeJS.ProcessEnv, script: string): Promise<InstalledCompletion | undefined> {
  const { scripts, startup } = places(shell, env);
  for (const path of scripts) {
    const text = await read(path);
    if (text !== undefined) return { shell, path, kind: 'script', current: text === script };
  }
  const line = new RegExp(`payrec completion ${shell}\\b`);
  for (const path of startup) {
    const text = await read(path);
    if (text !== undefined && line.test(text)) return { shell, path, kind: 'sourced', current: true };
  }
  return undefined;
}
