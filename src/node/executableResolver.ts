import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ExecutableResolver, ResolvedExecutable } from '../core/ports';
import { demoCommand } from '../core/clis';
import { launchForShim } from './windowsShim';

export interface PathExecutableResolverOptions {
  /** Absolute path of the bundled demo agent (dist/demoAgent.js). */
  readonly demoAgentScript: string;
  /** The JavaScript runtime that runs the demo agent: process.execPath (Node, or Electron as Node). */
  readonly runtime: string;
  /** Where PATH (and PATHEXT on Windows) come from. Default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Folder that relative commands such as `./bin/agent` are resolved against. Default process.cwd(). */
  readonly baseDir?: string;
  /** Default process.platform; tests use it to exercise the Windows rules. */
  readonly platform?: NodeJS.Platform;
}

const defaultPathExt = '.COM;.EXE;.BAT;.CMD';

/**
 * Finds what to run for a profile's command: the shipped demo agent for `${demoAgent}`, a path when
 * the command contains a slash, otherwise the first match on PATH. Only absolute PATH entries are
 * searched: an empty or relative entry would run whatever the current folder holds.
 */
export class PathExecutableResolver implements ExecutableResolver {
  private readonly env: Readonly<Record<string, string | undefined>>;
  private readonly platform: NodeJS.Platform;

  constructor(private readonly options: PathExecutableResolverOptions) {
    this.env = options.env ?? process.env;
    this.platform = options.platform ?? process.platform;
  }

  async resolve(command: string): Promise<ResolvedExecutable | undefined> {
    if (command === demoCommand) {
      return this.resolveDemoAgent();
    }
    const trimmed = command.trim();
    if (trimmed === '') {
      return undefined;
    }
    const found = hasDirectory(trimmed, this.isWindows) ? await this.findPath(trimmed) : await this.searchPath(trimmed);
    if (found === undefined) {
      return undefined;
    }
    const shim = this.isWindows ? await this.unwrapShim(found) : undefined;
    return { file: shim?.file ?? found, prefixArgs: shim?.prefixArgs ?? [], env: {} };
  }

  /** An npm `.cmd` shim is run as what it starts (node and its script), never through cmd.exe. */
  private unwrapShim(file: string) {
    return launchForShim(file, {
      readText: (f) => fs.readFile(f, 'utf8').catch(() => undefined),
      isFile,
      findNode: () => this.searchPath('node'),
    });
  }

  private get isWindows(): boolean {
    return this.platform === 'win32';
  }

  private async resolveDemoAgent(): Promise<ResolvedExecutable | undefined> {
    const { demoAgentScript, runtime } = this.options;
    if (!(await isFile(demoAgentScript)) || !(await this.isExecutable(runtime))) {
      return undefined;
    }
    // Under Electron (VS Code) process.execPath is the app itself; this makes it behave as Node.
    return { file: runtime, prefixArgs: [demoAgentScript], env: { ELECTRON_RUN_AS_NODE: '1' } };
  }

  private async findPath(command: string): Promise<string | undefined> {
    const expanded = command === '~' || /^~[/\\]/.test(command) ? path.join(os.homedir(), command.slice(1)) : command;
    return this.firstExecutable(path.resolve(this.options.baseDir ?? process.cwd(), expanded));
  }

  private async searchPath(command: string): Promise<string | undefined> {
    const dirs = (this.envValue('PATH') ?? '').split(this.isWindows ? ';' : ':');
    for (const dir of dirs) {
      const clean = this.isWindows ? dir.replace(/^"(.*)"$/, '$1') : dir;
      if (clean !== '' && path.isAbsolute(clean)) {
        const found = await this.firstExecutable(path.join(clean, command));
        if (found !== undefined) {
          return found;
        }
      }
    }
    return undefined;
  }

  /** On Windows, `agent` may be `agent.exe`, `agent.cmd`...: PATHEXT lists what is tried. */
  private async firstExecutable(candidate: string): Promise<string | undefined> {
    for (const file of this.candidates(candidate)) {
      if (await this.isExecutable(file)) {
        return file;
      }
    }
    return undefined;
  }

  private candidates(file: string): string[] {
    if (!this.isWindows) {
      return [file];
    }
    const exts = (this.envValue('PATHEXT') ?? defaultPathExt).split(';').filter((e) => e !== '');
    const ext = path.extname(file).toLowerCase();
    const hasKnownExt = exts.some((e) => e.toLowerCase() === ext);
    return hasKnownExt ? [file] : exts.map((e) => file + e.toLowerCase());
  }

  private async isExecutable(file: string): Promise<boolean> {
    if (!(await isFile(file))) {
      return false;
    }
    if (this.isWindows) {
      return true;
    }
    try {
      await fs.access(file, fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  }

  /** Windows spells it Path, PATH or path; variables there are case-insensitive. */
  private envValue(name: string): string | undefined {
    if (!this.isWindows) {
      return this.env[name];
    }
    const key = Object.keys(this.env).find((k) => k.toUpperCase() === name);
    return key === undefined ? undefined : this.env[key];
  }
}

function hasDirectory(command: string, windows: boolean): boolean {
  return (
    command.includes('/') ||
    command === '~' ||
    /^~[/\\]/.test(command) ||
    (windows && (command.includes('\\') || /^[A-Za-z]:/.test(command)))
  );
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await fs.stat(file)).isFile();
  } catch {
    return false;
  }
}
