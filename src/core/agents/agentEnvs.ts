/**
 * The worktreeEnv of each dispatch: the setting checked, an index and ports reserved before
 * anything is created (so a bad setting or a full port range leaves nothing behind), and the env
 * file written into the agent's worktree before its setup command runs.
 */
import type { AgentRecord } from '../agent';
import type { AgentRecords } from './agentRecords';
import { storedLine } from '../errors';
import type { WorktreeSetupGit } from '../git';
import type { FileSystemPort, ManagerSettings, PortProbe } from '../ports';
import { PortAllocator, parsePortRange } from './portAllocator';
import { type AgentEnv, envFileName, envFileText, expandWorktreeEnv, parseWorktreeEnv, portKeys } from './worktreeEnv';
import { joinPath } from '../../util/paths';

export class AgentEnvs {
  private readonly allocator: PortAllocator;
  private readonly releases = new Map<string, () => void>();

  constructor(
    probe: PortProbe | undefined,
    private readonly records: AgentRecords,
  ) {
    this.allocator = new PortAllocator(probe);
    // From then on the record holds them.
    records.onDidChange((change) => change.kind === 'added' && this.release(change.id));
  }

  /**
   * Checks the setting and reserves agent `id`'s index and ports; undefined without worktreeEnv.
   * The reservation holds until the agent's record is added, or undo(id) when the dispatch fails first.
   */
  async reserve(
    id: string,
    repoRoot: string,
    settings: Pick<ManagerSettings, 'worktreeEnv' | 'portRange'>,
  ): Promise<AgentEnv | undefined> {
    const template = parseWorktreeEnv(settings.worktreeEnv);
    if (template.length === 0) {
      return undefined;
    }
    const keys = portKeys(template);
    const range = parsePortRange(settings.portRange);
    const reserved = await this.allocator.reserve(repoRoot, keys, range, this.records.list());
    this.releases.set(id, reserved.release);
    return {
      index: reserved.index,
      ports: reserved.ports,
      vars: expandWorktreeEnv(template, reserved.index, reserved.ports),
    };
  }

  /** A promise's rejection handler that drops `id`'s reservation and rethrows. */
  undo(id: string): (e: unknown) => never {
    return (e) => {
      this.release(id);
      throw e;
    };
  }

  private release(id: string): void {
    this.releases.get(id)?.();
    this.releases.delete(id);
  }
}

/**
 * Writes the agent's variables to `.parallel-agents.env` in its worktree and keeps the file out of
 * git (the repository's info/exclude, shared by its worktrees); resolves with the agent's error
 * when that failed. Agents working in the workspace itself get no file: it is shared.
 */
export async function writeEnvFile(
  fs: Pick<FileSystemPort, 'writeText'>,
  git: Pick<WorktreeSetupGit, 'excludeLocally'>,
  record: Pick<AgentRecord, 'repoRoot' | 'worktreePath' | 'worktreeEnv'>,
): Promise<string | undefined> {
  if (!record.worktreeEnv || !record.worktreePath) {
    return undefined;
  }
  try {
    await git.excludeLocally(record.repoRoot, envFileName);
    await fs.writeText(joinPath(record.worktreePath, envFileName), envFileText(record.worktreeEnv.vars));
    return undefined;
  } catch (e) {
    return `${storedLine('worktreePrepFailed', {})}\n${(e as Error).message}`;
  }
}
