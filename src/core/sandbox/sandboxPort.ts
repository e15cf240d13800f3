import type { SandboxPolicy } from './policy';

/** What a sandboxed launch wraps: the agent's own command, in its worktree. */
export interface SandboxRequest {
  readonly agentId: string;
  readonly profile: string;
  readonly cwd: string;
  /** The agent's branch (its ref's folder is the one of refs/heads it may write). */
  readonly branch?: string;
  readonly policy: SandboxPolicy;
  /** The worktree and its git data read-only too (a reviewer: Review with Agent). */
  readonly readOnly?: boolean;
  readonly file: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

export interface SandboxCommand {
  readonly file: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** What the process that starts a sandboxed command does around it (the supervisor); absent unsandboxed. */
  readonly sandbox?: SandboxLaunch;
}

/**
 * The sandbox's part outside bubblewrap, done by the process that runs it (node/sandbox/sandboxHost.ts, inside
 * the supervisor): no process of its own is started for it.
 */
export interface SandboxLaunch {
  /** Made (with `tmp` in it) before bubblewrap starts, deleted after it ends. */
  readonly privateDir: string;
  /** The filtering proxy, when a host is allowed; without it the agent has no network at all. */
  readonly proxy?: {
    readonly socketPath: string;
    readonly allowedHosts: readonly string[];
    /**
     * How the agent's network namespace reaches `socketPath` when no bridge runs inside: socat started there
     * through nsenter, once bubblewrap told its child's pid on fd `infoFd`; bubblewrap holds the agent back on
     * fd `blockFd` until socat listens on `port`.
     */
    readonly forwarder?: SandboxForwarder;
  };
}

export interface SandboxForwarder {
  readonly nsenter: string;
  readonly socat: string;
  /** When found: the forwarder gets SIGKILL if the supervisor dies without ending it. */
  readonly setpriv?: string;
  readonly port: number;
}

/** The file descriptors of bubblewrap's `--info-fd` and `--block-fd` when a forwarder bridges the network. */
export const forwarderFds = { info: 3, block: 4 } as const;

/** Runs agents sandboxed (node/sandbox/bubblewrap.ts on Linux). */
export interface Sandbox {
  /** Why agents cannot be sandboxed here: `bwrap` not on PATH, or a `platform` without a sandbox yet. */
  unavailable(): Promise<{ readonly missing: 'bwrap' | 'platform'; readonly platform: string } | undefined>;
  /** The request's command, wrapped to run sandboxed; throws when the worktree is not one it knows. */
  wrap(request: SandboxRequest): SandboxCommand;
}
