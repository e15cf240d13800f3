/**
 * Preparing a new worktree before its agent starts: its submodules are initialised when
 * `initSubmodules` says so, the ignored files `.worktreeinclude` names are copied from the main
 * worktree, `symlinkFolders` are linked to the main worktree's, and the setup command's request
 * and failure message are made here (the manager runs it).
 */
import type { AgentRecord } from '../agent';
import { AgentError, storedLine } from '../errors';
import type { WorktreeSetupGit } from '../git';
import type { FileSystemPort, Logger, ManagerSettings, TransferReport } from '../ports';
import { joinPath, toForwardSlashes } from '../../util/paths';

/** Names listed one by one in the agent's log; beyond that only a count. */
const listedAtMost = 40;
/** Characters of a failed command's last output quoted in the agent's error. */
export const failureTailChars = 1500;

export class WorktreePrep {
  constructor(
    private readonly fs: FileSystemPort,
    private readonly source: WorktreeSetupGit,
    private readonly logger: Logger,
  ) {}

  /**
   * Initialises submodules (when the settings say so), then copies and links files into the
   * agent's new worktree, writing what it did through `log`; resolves with the agent's error when
   * a step failed, else undefined.
   */
  async prepare(
    record: Pick<AgentRecord, 'repoRoot' | 'cwd'>,
    settings: Pick<ManagerSettings, 'initSubmodules' | 'symlinkFolders'>,
    log: (text: string) => Promise<void>,
  ): Promise<string | undefined> {
    if (settings.initSubmodules) {
      try {
        const lines = await this.submodules(record.cwd);
        if (lines.length > 0) {
          await log(lines.join('\n'));
        }
      } catch (e) {
        const error = submoduleFailure(e);
        // The log is English, like every log line; the record keeps the code for the user's language.
        const git = error.slice(error.indexOf('\n') + 1);
        await log(`──── Initialising the submodules failed; the agent was not started.\n${git}`);
        return error;
      }
    }
    try {
      const lines = await this.files(record.repoRoot, record.cwd, settings.symlinkFolders ?? []);
      if (lines.length > 0) {
        await log(['──── preparing the worktree', ...lines].join('\n'));
      }
    } catch (e) {
      return `${storedLine('worktreePrepFailed', {})}\n${(e as Error).message}`;
    }
    return undefined;
  }

  /** Copies and links into `worktree`; returns what it did as lines for the agent's log ([] when nothing applied). */
  async files(repoRoot: string, worktree: string, symlinkFolders: readonly string[]): Promise<string[]> {
    const lines: string[] = [];
    const includes = await this.source.worktreeIncludes(repoRoot);
    if (includes.length > 0) {
      const report = await this.fs.copyInto(repoRoot, worktree, includes);
      lines.push(...describeCopy(report));
    }
    for (const folder of symlinkFolders) {
      lines.push(...(await this.link(repoRoot, worktree, folder)));
    }
    if (lines.length > 0) {
      this.logger.info(`[WorktreePrep] ${worktree}: ${lines.join('; ')}`);
    }
    return lines;
  }

  /**
   * Initialises the submodules of a worktree that has a `.gitmodules`; lines for the agent's log
   * ([] when it has none). First of all steps: a submodule's folder must be empty to be cloned into.
   */
  async submodules(worktree: string): Promise<string[]> {
    if (!(await this.fs.exists(joinPath(worktree, '.gitmodules')))) {
      return [];
    }
    const output = await this.source.initSubmodules(worktree);
    this.logger.info(`[WorktreePrep] ${worktree}: submodules initialised`);
    return [`──── submodules: ${commandText(submoduleCommand)}`, ...(output ? [output] : [])];
  }

  private async link(repoRoot: string, worktree: string, folder: string): Promise<string[]> {
    const rel = plainRelative(folder);
    if (rel === undefined) {
      return [`not linked: ${folder} (symlinkFolders takes folders relative to the repository)`];
    }
    if (!(await this.fs.exists(joinPath(repoRoot, rel)))) {
      return [`not linked: ${rel} (not in the main worktree)`];
    }
    if (!(await this.source.isIgnored(repoRoot, rel))) {
      return [`not linked: ${rel} (git does not ignore it in the main worktree)`];
    }
    const report = await this.fs.linkInto(repoRoot, worktree, rel);
    const lines =
      report.done.length > 0
        ? [`linked ${rel} → ${joinPath(repoRoot, rel)}`]
        : report.skipped.map((s) => `not linked: ${rel} (${s.reason})`);
    // A folder pattern such as `node_modules/` does not match a symlink: without this, the link
    // would be an untracked change of the agent, and committed with its work.
    if (report.done.length > 0 && !(await this.source.isIgnored(worktree, rel))) {
      await this.source.excludeLocally(repoRoot, rel);
      lines.push(
        `added /${rel} to the repository's info/exclude, so that git ignores the symlink as it does the folder`,
      );
    }
    return lines;
  }
}

function describeCopy(report: TransferReport): string[] {
  const lines =
    report.done.length > 0 ? [`copied from the main worktree (.worktreeinclude): ${listed(report.done)}`] : [];
  for (const skip of report.skipped.slice(0, listedAtMost)) {
    lines.push(`not copied: ${skip.path} (${skip.reason})`);
  }
  if (report.skipped.length > listedAtMost) {
    lines.push(`… and ${report.skipped.length - listedAtMost} more not copied`);
  }
  return lines;
}

function listed(paths: readonly string[]): string {
  const shown = paths.slice(0, listedAtMost).join(', ');
  return paths.length > listedAtMost
    ? `${shown} … and ${paths.length - listedAtMost} more (${paths.length} in all)`
    : shown;
}

/** `folder` as a clean relative path, or undefined when it is absolute or climbs out with `..`. */
function plainRelative(folder: string): string | undefined {
  const segments = toForwardSlashes(folder.trim())
    .split('/')
    .filter((s) => s !== '' && s !== '.');
  if (/^([a-zA-Z]:)?[\\/]/.test(folder.trim()) || segments.length === 0 || segments.includes('..')) {
    return undefined;
  }
  return segments.join('/');
}

const submoduleCommand = ['git', 'submodule', 'update', '--init', '--recursive'];

/** The agent's error when its submodules could not be initialised: git's own words, last. */
export function submoduleFailure(e: unknown): string {
  const git = AgentError.is(e)
    ? `${e.message}${e.detail ? `\n${e.detail}` : ''}`
    : e instanceof Error
      ? e.message
      : String(e);
  return `${storedLine('submodulesFailed', { command: commandText(submoduleCommand) })}\n${git.trim().slice(-failureTailChars)}`;
}

/** argv as a reader would type it: elements with spaces or quotes are JSON-quoted. */
export function commandText(argv: readonly string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ');
}
