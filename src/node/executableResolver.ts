import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import which from 'which';
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
}

const isWindows = process.platform === 'win32';
const defaultPathExt = '.COM;.EXE;.BAT;.CMD';

/**
 * Finds what to run for a profile's command: the shipped demo agent for `${demoAgent}`, a path when
 * the command contains a slash, otherwise the first match on PATH. The lookup itself (executable
 * bits, PATHEXT) is the `which` package's, on the real platform. Only absolute PATH entries are
 * searched, and on Windows a match in the current folder (which `which` tries first) is dropped
 * unless that folder is itself on PATH: an empty, relative or implied entry would run whatever the
 * current folder (perhaps an untrusted workspace) holds.
 */
export class PathExecutableResolver implements ExecutableResolver {
  private readonly env: Readonly<Record<string, string | undefined>>;

  constructor(private readonly options: PathExecutableResolverOptions) {
    this.env = options.env ?? process.env;
  }

  async resolve(command: string): Promise<ResolvedExecutable | undefined> {
    if (command === demoCommand) {
      return this.resolveDemoAgent();
    }
    const trimmed = command.trim();
    if (trimmed === '') {
      return undefined;
    }
    const found = hasDirectory(trimmed) ? await this.findPath(trimmed) : await this.searchPath(trimmed);
    if (found === undefined) {
      return undefined;
    }
    const shim = isWindows ? await this.unwrapShim(found) : undefined;
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

  private async resolveDemoAgent(): Promise<ResolvedExecutable | undefined> {
    const { demoAgentScript, runtime } = this.options;
    if (!(await isFile(demoAgentScript)) || (await this.executableAt(runtime)) === undefined) {
      return undefined;
    }
    // Under Electron (VS Code) process.execPath is the app itself; this makes it behave as Node.
    return { file: runtime, prefixArgs: [demoAgentScript], env: { ELECTRON_RUN_AS_NODE: '1' } };
  }

  private findPath(command: string): Promise<string | undefined> {
    const expanded = command === '~' || /^~[/\\]/.test(command) ? path.join(os.homedir(), command.slice(1)) : command;
    return this.executableAt(path.resolve(this.options.baseDir ?? process.cwd(), expanded));
  }

  /** An absolute path has a separator, so `which` only tries it (with PATHEXT's extensions on Windows). */
  private async executableAt(file: string): Promise<string | undefined> {
    return (await which(file, { pathExt: this.pathExt(), nothrow: true })) ?? undefined;
  }

  private async searchPath(command: string): Promise<string | undefined> {
    const dirs = this.pathDirs();
    if (dirs.length === 0) {
      return undefined; // an empty PATH would make `which` try the bare name, i.e. the current folder
    }
    const options = { path: dirs.join(path.delimiter), pathExt: this.pathExt(), all: true, nothrow: true } as const;
    return firstOnPath((await which(command, options)) ?? [], dirs, path);
  }

  /** PATH's absolute entries, unquoted (Windows allows `"C:\Program Files\x"`). */
  private pathDirs(): string[] {
    const entries = (this.envValue('PATH') ?? '').split(path.delimiter);
    const unquoted = isWindows ? entries.map((d) => d.replace(/^"(.*)"$/, '$1')) : entries;
    return unquoted.filter((d) => d !== '' && path.isAbsolute(d));
  }

  /**
   * Lower-cased, so that `agent` is found as `agent.cmd`, not `agent.CMD` (Windows matches names
   * regardless of case). Without empty entries: to `isexe` an empty one makes every file executable.
   * Ignored by `which` off Windows.
   */
  private pathExt(): string {
    const exts = (this.envValue('PATHEXT') ?? '').split(';').filter((e) => e !== '');
    return (exts.length > 0 ? exts.join(';') : defaultPathExt).toLowerCase();
  }

  /** Windows spells it Path, PATH or path; variables there are case-insensitive. */
  private envValue(name: string): string | undefined {
    if (!isWindows) {
      return this.env[name];
    }
    const key = Object.keys(this.env).find((k) => k.toUpperCase() === name);
    return key === undefined ? undefined : this.env[key];
  }
}

/**
 * The first of `which`'s matches (all of them, in its order) taken in PATH order and lying in a
 * PATH folder. This drops the current folder `which` searches first on Windows, or moves its match
 * to that folder's own place when it is also on PATH. Folders compare case-insensitively on Windows.
 */
export function firstOnPath(
  matches: readonly string[],
  dirs: readonly string[],
  paths: Pick<typeof path, 'dirname' | 'resolve' | 'sep'>,
): string | undefined {
  const key = (dir: string) => {
    const resolved = paths.resolve(dir);
    return paths.sep === '\\' ? resolved.toLowerCase() : resolved;
  };
  for (const dir of dirs) {
    const found = matches.find((m) => key(paths.dirname(m)) === key(dir));
    if (found !== undefined) {
      return found;
    }
  }
  return undefined;
}

function hasDirectory(command: string): boolean {
  return (
    command.includes('/') ||
    command === '~' ||
    /^~[/\\]/.test(command) ||
    (isWindows && (command.includes('\\') || /^[A-Za-z]:/.test(command)))
  );
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await fs.stat(file)).isFile();
  } catch {
    return false;
  }
}
