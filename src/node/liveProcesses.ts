/**
 * Live processes working in folders, for Reconcile: a worktree something runs in is no orphan. Two
 * sources: the status files the supervisors of headless agents write (every window's runs of the
 * repository, in its registry), whose pids are checked to be the very processes started; and, on
 * Linux, every process's current folder (/proc/<pid>/cwd), which also finds terminals, shells and
 * tools. A source that cannot be read (permissions, a process that ended meanwhile) is skipped.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LiveProcess, LiveRuns } from '../core/ports';
import { atOrUnder } from '../core/reconcile';
import { parseStatus } from '../supervisor/protocol';
import { livePid } from './supervisorStatus';

export interface LiveProcessesOptions {
  /** The folders of the status files of the repository's runs (its registry's, the window's own). */
  readonly statusDirs: (repoRoot: string) => readonly string[];
  /** Look at every process's current folder; default: on Linux only (no /proc elsewhere). */
  readonly scanProc?: boolean;
}

interface Folder {
  readonly given: string;
  readonly real: string;
}

export class LiveProcesses implements LiveRuns {
  constructor(private readonly options: LiveProcessesOptions) {}

  async inFolders(repoRoot: string, folders: readonly string[]): Promise<readonly LiveProcess[]> {
    const wanted = await Promise.all(
      folders.map(async (given) => ({ given, real: await fs.promises.realpath(given).catch(() => given) })),
    );
    const scan = this.options.scanProc ?? process.platform === 'linux';
    const [runs, others] = await Promise.all([
      this.fromStatusFiles(repoRoot, wanted),
      scan ? fromProc(wanted) : Promise.resolve([]),
    ]);
    return [...runs, ...others];
  }

  private async fromStatusFiles(repoRoot: string, wanted: readonly Folder[]): Promise<LiveProcess[]> {
    const found: LiveProcess[] = [];
    for (const dir of new Set(this.options.statusDirs(repoRoot))) {
      const names = await fs.promises.readdir(dir).catch(() => [] as string[]);
      for (const name of names.filter((n) => n.endsWith('.status.json'))) {
        const text = await fs.promises.readFile(path.join(dir, name), 'utf8').catch(() => '');
        const status = parseStatus(text);
        const cwd = status?.cwd === undefined ? undefined : inside(status.cwd, wanted);
        const pid = cwd === undefined || !status ? undefined : livePid(status);
        if (cwd !== undefined && pid !== undefined) {
          found.push({ pid, cwd });
        }
      }
    }
    return found;
  }
}

/** Linux: every process (but this one) whose current folder is one of the folders or inside one. */
async function fromProc(wanted: readonly Folder[]): Promise<LiveProcess[]> {
  const pids = (await fs.promises.readdir('/proc').catch(() => [] as string[]))
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => pid !== process.pid);
  const found = await Promise.all(
    pids.map(async (pid) => {
      const link = await fs.promises.readlink(`/proc/${pid}/cwd`).catch(() => undefined);
      const cwd = link === undefined ? undefined : inside(link.replace(/ \(deleted\)$/, ''), wanted);
      return cwd === undefined ? [] : [{ pid, cwd }];
    }),
  );
  return found.flat();
}

/** `cwd` as a path under the folder it was asked about (the name given, not its real path), if it is in one. */
function inside(cwd: string, wanted: readonly Folder[]): string | undefined {
  for (const folder of wanted) {
    if (atOrUnder(cwd, folder.given)) {
      return cwd;
    }
    if (atOrUnder(cwd, folder.real)) {
      return folder.given + cwd.slice(folder.real.length);
    }
  }
  return undefined;
}
