/**
 * Linux sandbox of an agent: bubblewrap (bwrap) from PATH, with the mounts of core/sandbox's
 * bwrapArgs for what it finds on disk (the worktree's git folders, the credential stores that
 * exist). The supervisor that runs it does the outside part (SandboxCommand.sandbox, sandboxHost.ts): the
 * private folder, the network filter and, with socat and nsenter on PATH, the forwarder into the agent's
 * network namespace; without them, dist/sandbox.js bridges inside, one Node process more to start.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import which from 'which';
import { AgentError } from '../../core/errors';
import {
  type HiddenPath,
  type Sandbox,
  type SandboxCommand,
  type SandboxForwarder,
  type SandboxRequest,
  bwrapArgs,
  forwarderFds,
  hiddenHomePaths,
  proxyEnv,
  unsetVariables,
} from '../../core/sandbox';

export interface BubblewrapOptions {
  /** dist/sandbox.js (sandboxMain.ts). */
  readonly sandboxScript: string;
  /** The Node that runs it: process.execPath (Node, or Electron as Node). */
  readonly runtime: string;
  /** Where PATH comes from; default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly platform?: NodeJS.Platform;
}

/** The port the agent's proxy variables name, inside its own network namespace (any is free there). */
const proxyPort = 3128;

export class BubblewrapSandbox implements Sandbox {
  constructor(private readonly options: BubblewrapOptions) {}

  async unavailable() {
    const platform = this.options.platform ?? process.platform;
    if (platform !== 'linux') {
      return { missing: 'platform' as const, platform };
    }
    return this.bwrap() === undefined ? { missing: 'bwrap' as const, platform } : undefined;
  }

  wrap(request: SandboxRequest): SandboxCommand {
    const bwrap = this.bwrap();
    if (bwrap === undefined) {
      throw new AgentError('sandboxUnavailable', { profile: request.profile, missing: 'bwrap', platform: 'linux' });
    }
    const cwd = fs.realpathSync(request.cwd);
    const gitDir = worktreeGitDir(cwd);
    if (gitDir === undefined) {
      throw new AgentError('sandboxNeedsWorktree', { profile: request.profile });
    }
    const commonDir = path.resolve(gitDir, fs.readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim());
    const refDir = request.branch ? path.dirname(path.join(commonDir, 'refs', 'heads', request.branch)) : undefined;
    const privateDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pa-sandbox-')));
    const socketPath = path.join(privateDir, 'proxy.sock');
    const hosts = request.policy.allowedHosts;
    const forwarder = hosts.length > 0 ? this.forwarder(socketPath) : undefined;
    const { sandboxScript, runtime } = this.options;
    const emptied = ['/tmp', '/run', realDir(os.tmpdir())].filter(isRealDir).filter(unique);
    const home = request.env.HOME ?? os.homedir();
    const under = (p: string) => emptied.some((root) => p === root || p.startsWith(`${root}/`));
    const needed = [home, path.dirname(sandboxScript), path.dirname(runtime), path.dirname(request.file)];
    const args = bwrapArgs({
      cwd,
      gitDir,
      commonDir,
      gitWritable: request.readOnly
        ? []
        : [path.join(commonDir, 'objects'), path.join(commonDir, 'logs'), refDir ?? ''].filter(isRealDir),
      readOnlyWorktree: request.readOnly === true,
      gitPointers: ['commondir', 'gitdir'].map((f) => path.join(gitDir, f)).filter((f) => fs.existsSync(f)),
      privateDir,
      emptied,
      readOnly: needed
        .map(realDir)
        .filter((p) => under(p) && isRealDir(p))
        .filter(unique),
      writable: expand(request.policy.writablePaths ?? [], home).filter((p) => fs.existsSync(p)),
      hidden: hiddenPaths([home, os.homedir()], request.policy.hiddenPaths ?? []),
      setEnv: proxyEnv(proxyPort),
      unsetEnv: unsetVariables,
      ...(forwarder ? { syncFds: forwarderFds, rootInside: process.getuid?.() !== 0 } : {}),
      // No host allowed: no network at all, so no bridge to the proxy; a forwarder bridges from outside.
      command:
        hosts.length === 0 || forwarder
          ? [request.file, ...request.args]
          : [runtime, sandboxScript, 'bridge', String(proxyPort), socketPath, '--', request.file, ...request.args],
    });
    return {
      file: bwrap,
      args,
      // The bridge inside runs on the runtime, which may be Electron.
      env: { ...request.env, ELECTRON_RUN_AS_NODE: '1' },
      sandbox: {
        privateDir,
        ...(hosts.length > 0
          ? { proxy: { socketPath, allowedHosts: hosts, ...(forwarder ? { forwarder } : {}) } }
          : {}),
      },
    };
  }

  /**
   * socat and nsenter from PATH (setpriv too when there), unless the socket's path holds a character
   * socat's address syntax reads (`:` `,` `!` and the like): then the Node bridge inside.
   */
  private forwarder(socketPath: string): SandboxForwarder | undefined {
    // A normal user's agent then runs as uid 0 inside (rootInside): else bubblewrap's --dev nests its user
    // namespace in the one owning its network, which nsenter (util-linux 2.38) cannot enter.
    const [socat, nsenter, setpriv] = ['socat', 'nsenter', 'setpriv'].map((name) => this.find(name));
    if (socat === undefined || nsenter === undefined || !/^[A-Za-z0-9/._-]+$/.test(socketPath)) {
      return undefined;
    }
    return { socat, nsenter, ...(setpriv ? { setpriv } : {}), port: proxyPort };
  }

  private bwrap(): string | undefined {
    return this.find('bwrap');
  }

  private find(name: string): string | undefined {
    const env = this.options.env ?? process.env;
    return which.sync(name, { path: env.PATH ?? '', nothrow: true }) ?? undefined;
  }
}

/** The worktree's own git folder, from its `.git` file; undefined for a main worktree (a `.git` folder). */
function worktreeGitDir(cwd: string): string | undefined {
  const dotGit = path.join(cwd, '.git');
  if (!fs.statSync(dotGit, { throwIfNoEntry: false })?.isFile()) {
    return undefined;
  }
  const match = /^gitdir:\s*(.+)$/m.exec(fs.readFileSync(dotGit, 'utf8'));
  return match ? realDir(path.resolve(cwd, match[1].trim())) : undefined;
}

function hiddenPaths(homes: readonly string[], extra: readonly string[]): HiddenPath[] {
  const candidates = homes
    .filter(unique)
    .flatMap((home) => [...hiddenHomePaths.map((rel) => path.join(home, rel)), ...expand(extra, home)]);
  return candidates.filter(unique).flatMap((p): HiddenPath[] => {
    const stat = fs.statSync(p, { throwIfNoEntry: false });
    return stat === undefined ? [] : [{ path: p, kind: stat.isDirectory() ? 'dir' : 'file' }];
  });
}

function expand(paths: readonly string[], home: string): string[] {
  return paths.map((p) => (p.startsWith('~/') ? path.join(home, p.slice(2)) : p));
}

function realDir(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

function isRealDir(p: string): boolean {
  return fs.lstatSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

function unique<T>(value: T, index: number, all: readonly T[]): boolean {
  return all.indexOf(value) === index;
}
