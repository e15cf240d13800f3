/**
 * The per-user list of warm worktree pools (`pools.json`): which pool folder belongs to which
 * repository. The extension keeps it; its uninstall script, which runs without VS Code's API,
 * reads it to remove every pool. Plain Node, no vscode import.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { poolFolderName } from '../core/worktrees';

export interface RememberedPool {
  readonly repoRoot: string;
  readonly poolDir: string;
}

/**
 * `$PARALLEL_AGENTS_POOL_LIST` when set; else `%LOCALAPPDATA%\parallel-agents\pools.json` on
 * Windows, `$XDG_STATE_HOME/parallel-agents/pools.json` (default `~/.local/state`) elsewhere.
 */
export function poolListFile(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PARALLEL_AGENTS_POOL_LIST) {
    return env.PARALLEL_AGENTS_POOL_LIST;
  }
  const base =
    process.platform === 'win32'
      ? (env.LOCALAPPDATA ?? path.join(os.homedir(), 'AppData', 'Local'))
      : (env.XDG_STATE_HOME ?? path.join(os.homedir(), '.local', 'state'));
  return path.join(base, 'parallel-agents', 'pools.json');
}

function parseList(text: string): RememberedPool[] {
  try {
    const raw: unknown = JSON.parse(text);
    return Array.isArray(raw)
      ? raw.filter(
          (p): p is RememberedPool =>
            typeof (p as RememberedPool)?.repoRoot === 'string' && typeof (p as RememberedPool)?.poolDir === 'string',
        )
      : [];
  } catch {
    return [];
  }
}

export async function readPoolList(file: string): Promise<RememberedPool[]> {
  return parseList(await fs.readFile(file, 'utf8').catch(() => '[]'));
}

export async function writePoolList(file: string, list: readonly RememberedPool[]): Promise<void> {
  if (list.length === 0) {
    await fs.rm(file, { force: true });
    return;
  }
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  await fs.writeFile(tmp, JSON.stringify(list, undefined, 1));
  await fs.rename(tmp, file);
}

/**
 * Removes every remembered pool: each worktree git registers under a pool folder (`git worktree
 * remove --force --force`), the folder itself, then `git worktree prune`; finally the list. What
 * it did, one line each. Synchronous: the uninstall script runs it and exits.
 */
export function removeRememberedPools(file: string, gitBinary = 'git'): string[] {
  const list = existsSync(file) ? parseList(readFileSync(file, 'utf8')) : [];
  const done: string[] = [];
  for (const { repoRoot, poolDir } of list) {
    // Only a folder the pool makes: a damaged or edited list never gets anything else deleted.
    if (path.basename(path.resolve(poolDir)) !== poolFolderName) {
      done.push(`skipped ${poolDir}: not a pool folder (${poolFolderName})`);
      continue;
    }
    const git = (args: string[]) =>
      spawnSync(gitBinary, ['-C', repoRoot, ...args], { encoding: 'utf8', windowsHide: true, maxBuffer: 64 << 20 });
    if (existsSync(repoRoot)) {
      const listed = git(['worktree', 'list', '--porcelain', '-z']);
      const paths = (listed.stdout ?? '')
        .split('\0')
        .filter((l) => l.startsWith('worktree '))
        .map((l) => l.slice('worktree '.length));
      const under = path.resolve(poolDir) + path.sep;
      for (const p of paths.filter((w) => path.resolve(w).startsWith(under))) {
        git(['worktree', 'remove', '--force', '--force', p]);
      }
    }
    rmSync(poolDir, { recursive: true, force: true });
    if (existsSync(repoRoot)) {
      git(['worktree', 'prune']);
    }
    done.push(`removed ${poolDir} (${repoRoot})`);
  }
  rmSync(file, { force: true });
  return done;
}
