// The bench's git repository: folders × files of small text, one commit, in os.tmpdir(). Its
// worktrees go to a sibling folder, so disposing of the parent removes everything.
import { execFile } from 'node:child_process';
import { accessSync, constants, readFileSync, realpathSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

const identity = {
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@parallel-agents.invalid',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@parallel-agents.invalid',
};

export interface BenchRepo {
  /** The temp folder it was made in, and that folder's file system type (ext4, tmpfs...). */
  readonly base: string;
  readonly fsType: string;
  /** Private temp folder holding the repository, its worktrees and logs. */
  readonly parent: string;
  readonly dir: string;
  readonly sha: string;
  readonly fileCount: number;
  /** Where worktrees go (the manager's worktreeRoot and the plain adds alike). */
  readonly worktreeRoot: string;
  git(...args: string[]): Promise<string>;
  dispose(): Promise<void>;
}

export async function git(cwd: string, args: readonly string[]): Promise<string> {
  const { stdout } = await execFileAsync('git', [...args], {
    cwd,
    env: { ...process.env, ...identity },
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/** Type of the file system holding `dir`: the mount with the longest matching mount point. */
export function fileSystemType(dir: string): string {
  let best = { point: '', type: 'unknown' };
  try {
    for (const line of readFileSync('/proc/mounts', 'utf8').split('\n')) {
      const [, point, type] = line.split(' ');
      if (
        point &&
        type &&
        (dir === point || dir.startsWith(point.endsWith('/') ? point : `${point}/`)) &&
        point.length > best.point.length
      ) {
        best = { point, type };
      }
    }
  } catch {
    // Not Linux: the type stays unknown.
  }
  return best.type;
}

/**
 * A memory file system to repeat the dispatch figures without the disk: undefined when there is
 * none, or when os.tmpdir() is one already.
 */
export function memoryTempDir(): string | undefined {
  const candidate = '/dev/shm';
  if (fileSystemType(realpathSync(os.tmpdir())) === 'tmpfs' || fileSystemType(candidate) !== 'tmpfs') {
    return undefined;
  }
  try {
    accessSync(candidate, constants.W_OK);
    return candidate;
  } catch {
    return undefined;
  }
}

export async function createBenchRepo(base = os.tmpdir(), folders = 100, filesPerFolder = 100): Promise<BenchRepo> {
  const parent = await fs.realpath(await fs.mkdtemp(path.join(base, 'pa-bench-')));
  const dir = path.join(parent, 'repo');
  try {
    for (let f = 0; f < folders; f++) {
      const folder = path.join(dir, `pkg${String(f).padStart(3, '0')}`);
      await fs.mkdir(folder, { recursive: true });
      await Promise.all(
        Array.from({ length: filesPerFolder }, (_, i) =>
          fs.writeFile(
            path.join(folder, `file${String(i).padStart(3, '0')}.txt`),
            `folder ${f} file ${i}\n${'lorem ipsum dolor sit amet '.repeat(4)}\n`,
          ),
        ),
      );
    }
    await git(dir, ['init', '-q', '-b', 'main']);
    await git(dir, ['config', 'commit.gpgsign', 'false']);
    await git(dir, ['add', '--all']);
    await git(dir, ['commit', '-q', '-m', 'bench fixture']);
    const sha = (await git(dir, ['rev-parse', 'HEAD'])).trim();
    return {
      base,
      fsType: fileSystemType(parent),
      parent,
      dir,
      sha,
      fileCount: folders * filesPerFolder,
      worktreeRoot: path.join(parent, 'worktrees'),
      git: (...args) => git(dir, args),
      dispose: () => fs.rm(parent, { recursive: true, force: true, maxRetries: 3 }),
    };
  } catch (e) {
    await fs.rm(parent, { recursive: true, force: true });
    throw e;
  }
}

/** The baseline: what a person would type, run the cheapest way Node can. */
export async function plainWorktreeAdd(
  repo: BenchRepo,
  name: string,
  extraConfig: readonly string[] = [],
): Promise<string> {
  const target = path.join(repo.worktreeRoot, name);
  await git(repo.dir, [...extraConfig, 'worktree', 'add', '-b', `plain/${name}`, target, repo.sha]);
  return target;
}

export async function removePlainWorktree(repo: BenchRepo, name: string): Promise<void> {
  await git(repo.dir, ['worktree', 'remove', '--force', '--force', path.join(repo.worktreeRoot, name)]);
  await git(repo.dir, ['branch', '-D', `plain/${name}`]);
}

/** What a plain add that failed (git's own races when many run at once) may leave: registration, folder, branch. */
export async function cleanUpFailedAdd(repo: BenchRepo, name: string): Promise<void> {
  const target = path.join(repo.worktreeRoot, name);
  await git(repo.dir, ['worktree', 'remove', '--force', '--force', target]).catch(() => undefined);
  await fs.rm(target, { recursive: true, force: true });
  await git(repo.dir, ['worktree', 'prune']);
  await git(repo.dir, ['branch', '-D', `plain/${name}`]).catch(() => undefined);
}
