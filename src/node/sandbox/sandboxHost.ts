/**
 * The part of a sandboxed agent outside bubblewrap, done inside the supervisor that runs bubblewrap, so
 * that no Node process starts for it: the private folder, the filtering proxy on a unix socket and, when
 * a forwarder bridges the network (bubblewrap.ts found socat and nsenter), socat started in the agent's
 * network namespace before bubblewrap lets the agent start. Every process: argv only, no shell.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { type SandboxForwarder, type SandboxLaunch, forwarderFds } from '../../core/sandbox';
import { type FilterProxy, startFilterProxy } from './filterProxy';

/** How long socat may take to listen before the agent's start fails. */
const forwarderTimeoutMs = 10_000;

export class SandboxHost {
  private forwarder?: ChildProcess;

  private constructor(
    private readonly launch: SandboxLaunch,
    private readonly proxy: FilterProxy | undefined,
  ) {}

  /** Makes the private folder and starts the proxy; `log` gets the proxy's refusals. */
  static async open(launch: SandboxLaunch, log: (line: string) => void): Promise<SandboxHost> {
    fs.mkdirSync(path.join(launch.privateDir, 'tmp'), { recursive: true, mode: 0o700 });
    try {
      const proxy = launch.proxy && (await startFilterProxy(launch.proxy.socketPath, launch.proxy.allowedHosts, log));
      return new SandboxHost(launch, proxy);
    } catch (e) {
      fs.rmSync(launch.privateDir, { recursive: true, force: true });
      throw e;
    }
  }

  /** The stdio bubblewrap needs past stderr: its info and block fds when a forwarder bridges. */
  extraStdio(): 'pipe'[] {
    return this.launch.proxy?.forwarder ? ['pipe', 'pipe'] : [];
  }

  /**
   * After bubblewrap started: with a forwarder, reads its child's pid, starts socat in that network
   * namespace and, once it listens, lets the agent start. Rejects when that fails: the agent never ran.
   */
  async started(child: ChildProcess): Promise<void> {
    const proxy = this.launch.proxy;
    if (!proxy?.forwarder) {
      return;
    }
    const pid = await childPid(child.stdio[forwarderFds.info] as Readable);
    this.forwarder = startForwarder(proxy.forwarder, pid, proxy.socketPath);
    await listening(this.forwarder);
    (child.stdio[forwarderFds.block] as Writable).end('1');
  }

  /** Ends the forwarder and deletes the private folder; the proxy stops serving (it ends with the supervisor too). */
  close(): void {
    this.forwarder?.kill('SIGKILL');
    void this.proxy?.close();
    fs.rmSync(this.launch.privateDir, { recursive: true, force: true });
  }
}

/** The pid of bubblewrap's child (its JSON on `--info-fd`, closed after it). */
function childPid(info: Readable): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = '';
    info.setEncoding('utf8');
    info.on('data', (chunk: string) => {
      text += chunk;
    });
    info.on('error', reject);
    info.on('close', () => {
      const match = /"child-pid":\s*(\d+)/.exec(text);
      if (match) {
        resolve(Number(match[1]));
      } else {
        reject(new Error('bubblewrap did not tell its pid'));
      }
    });
  });
}

/**
 * socat in the sandbox's user and network namespaces only (not its mounts: it reaches the proxy's socket
 * by its path outside), listening on every address of a namespace whose only interface is loopback,
 * which bubblewrap may bring up after socat binds.
 */
export function forwarderArgv(forwarder: SandboxForwarder, pid: number, socketPath: string): string[] {
  const ownUser = fs.readlinkSync('/proc/self/ns/user') === fs.readlinkSync(`/proc/${pid}/ns/user`);
  const nsenter = [
    forwarder.nsenter,
    '--preserve-credentials',
    ...(ownUser ? [] : [`--user=/proc/${pid}/ns/user`]),
    `--net=/proc/${pid}/ns/net`,
    '--',
    forwarder.socat,
    '-d',
    '-d',
    `TCP-LISTEN:${forwarder.port},fork,reuseaddr`,
    `UNIX-CONNECT:${socketPath}`,
  ];
  return forwarder.setpriv ? [forwarder.setpriv, '--pdeathsig', 'KILL', '--', ...nsenter] : nsenter;
}

function startForwarder(forwarder: SandboxForwarder, pid: number, socketPath: string): ChildProcess {
  const argv = forwarderArgv(forwarder, pid, socketPath);
  return spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'], shell: false });
}

/** Resolves when socat says it listens (`-d -d`); its later notices are read and dropped. */
function listening(forwarder: ChildProcess): Promise<void> {
  const stderr = forwarder.stderr!;
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => fail('it did not listen in time'), forwarderTimeoutMs);
    const fail = (why: string) => {
      clearTimeout(timer);
      reject(new Error(`the network forwarder (socat) did not start: ${why}: ${text.slice(-500).trim()}`));
    };
    stderr.setEncoding('utf8');
    stderr.on('data', (chunk: string) => {
      if (text.length < 4096) {
        text += chunk;
      }
      if (/ listening on /.test(text)) {
        clearTimeout(timer);
        text = '';
        resolve();
      }
    });
    forwarder.once('error', (e) => fail(e.message));
    forwarder.once('exit', (code) => fail(`it ended (${code ?? 'signal'})`));
  });
}
