/** What a plan run (planRun.ts and the modules it delegates to) takes from the rest of the extension. */
import type { AgentManager } from '../agents';
import type { ChangeGit, LandingGit, RefGit, SnapshotGit, WorktreeGit } from '../git';
import type { Clock, FileSystemPort, Logger, ManagerSettings, RepositoryLocks } from '../ports';

export interface PlanRunDeps {
  readonly manager: AgentManager;
  readonly git: WorktreeGit & RefGit & ChangeGit & LandingGit & SnapshotGit;
  readonly fs: FileSystemPort;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Land Plan holds the repository's landing lock (see AgentLanding.merge); none when absent. */
  readonly locks?: RepositoryLocks;
  /** Discard Agent (AgentLanding.discard): a Best of N task's other candidates once the pick is merged. */
  readonly discard?: (id: string) => Promise<void>;
  readonly settings: () => ManagerSettings & { readonly defaultProfile: string; readonly maxParallel: number };
}
