/** What AgentManager is built from, and what a dispatch asks for. */
import type { AgentRecord, Isolation } from '../agent';
import type {
  AgentRunner,
  Clock,
  ExecutableResolver,
  FileSystemPort,
  FolderWatcher,
  Logger,
  ManagerSettings,
  PortProbe,
  StateStore,
} from '../ports';
import type { ChangeGit, RefGit, RemoteGit, SnapshotGit, StackGit, WorktreeGit, WorktreeSetupGit } from '../git';
import type { Profile } from '../clis';
import type { Sandbox } from '../sandbox';
import type { WorktreePool } from '../worktrees';

/** Where Dispatch Agent on Branch starts an agent: an existing local branch, or a pull request of a remote. */
export type DispatchStart = { readonly branch: string } | { readonly pullRequest: number; readonly remote?: string };

export interface DispatchOptions {
  readonly prompt: string;
  readonly profile: string;
  readonly isolation?: Isolation;
  readonly title?: string;
  /** The workspace folder the agent works on (any folder inside the repository). */
  readonly folder: string;
  /** Commit or branch the worktree starts from; default: HEAD of the repository. */
  readonly base?: string;
  /**
   * Instead of a new branch at `base`: a worktree on an existing local branch (`branch`), or on a new
   * branch at a pull request's head (`pullRequest`, fetched from `remote`, default origin). Worktree
   * isolation only; see dispatchStart.ts.
   */
  readonly start?: DispatchStart;
  /** Stacked: starts from a snapshot of this agent's worktree (its id) instead; see stacking.ts. */
  readonly stackOn?: string;
  /** Marks the agent as a task of a plan run. */
  readonly plan?: AgentRecord['plan'];
  /** Marks the agent as a candidate of Dispatch Best of N (see bestOf.ts). */
  readonly bestOf?: AgentRecord['bestOf'];
  /** Runs the agent in an integrated terminal whatever its profile's mode (a plan task's `isolation: "terminal"`). */
  readonly inTerminal?: boolean;
  /** Runs this one agent of a sandboxed profile unsandboxed, with its prompts (its own args, no auto-approve). */
  readonly unsandboxed?: boolean;
}

export interface AgentManagerDeps {
  readonly git: WorktreeGit &
    RefGit &
    ChangeGit &
    Pick<RemoteGit, 'remotes' | 'fetchPullRequest'> &
    Pick<SnapshotGit, 'saveWork'> &
    StackGit;
  readonly fs: FileSystemPort;
  /** Which ignored files of the main worktree a new worktree gets (.worktreeinclude, symlinkFolders). */
  readonly worktreeSource: WorktreeSetupGit;
  readonly resolver: ExecutableResolver;
  readonly headlessRunner: AgentRunner;
  readonly terminalRunner: AgentRunner;
  readonly watcher: FolderWatcher;
  readonly store: StateStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly settings: () => ManagerSettings;
  readonly profiles: () => readonly Profile[];
  readonly newId: () => string;
  /**
   * Whether a process lives (not a zombie): a terminal agent another window runs, whose terminal is
   * not in this one, stays running while its process does instead of being marked detached.
   */
  readonly processAlive: (pid: number) => boolean;
  /** Warm worktrees a dispatch takes instead of adding one (parallelAgents.worktreePool). */
  readonly pool?: Pick<WorktreePool, 'take'>;
  /** Tells which ports of `parallelAgents.portRange` are in use; without it only the agents' records count. */
  readonly portProbe?: PortProbe;
  /** Runs the agents of sandboxed profiles; without it such a profile cannot be dispatched. */
  readonly sandbox?: Sandbox;
}
