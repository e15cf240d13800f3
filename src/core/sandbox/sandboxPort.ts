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
}

/** Runs agents sandboxed (node/sandbox/bubblewrap.ts on Linux). */
export interface Sandbox {
  /** Why agents cannot be sandboxed here: `bwrap` not on PATH, or a `platform` without a sandbox yet. */
  unavailable(): Promise<{ readonly missing: 'bwrap' | 'platform'; readonly platform: string } | undefined>;
  /** The request's command, wrapped to run sandboxed; throws when the worktree is not one it knows. */
  wrap(request: SandboxRequest): SandboxCommand;
}
