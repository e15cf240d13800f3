/**
 * The disk side of the warm worktree pool: each entry `<pool>/<slot>/` has a side file
 * `<pool>/<slot>.json` (its PoolMeta and the writer's pid), renamed to `<slot>.taken.json` by
 * whoever claims it (a dispatch taking it, a refresh moving it), so two windows never take one
 * entry. The per-user list of pool folders is what the uninstall script (poolUninstall.ts) removes.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, statSync, watch, type FSWatcher } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { PoolDisk, PoolEntryInfo, PoolMeta } from '../core/worktrees';
import { debounce } from '../util/async';
import type { Disposable } from '../util/event';
import { lowerPriority } from './git/process';
import { poolListFile, readPoolList, writePoolList } from './poolList';

/** A claim older than this was left by a window that died while taking the entry. */
const claimMaxAgeMs = 10 * 60_000;

const metaFile = (dir: string) => `${dir}.json`;
const takenFile = (dir: string) => `${dir}.taken.json`;

export class NodePoolDisk implements PoolDisk {
  constructor(private readonly listFile: string = poolListFile()) {}

  async list(poolDir: string): Promise<PoolEntryInfo[]> {
    const names = await fs.readdir(poolDir).catch(() => [] as string[]);
    const slots = new Set(
      names
        .filter((n) => !n.startsWith('.'))
        .map((n) => n.replace(/\.taken\.json$|\.setup\.log$|\.json$|\.tmp-\d+$/, ''))
        .filter((n) => !n.includes('.')),
    );
    return Promise.all([...slots].sort().map((slot) => this.entry(path.join(poolDir, slot))));
  }

  private async entry(dir: string): Promise<PoolEntryInfo> {
    const taken = await fs.stat(takenFile(dir)).catch(() => undefined);
    if (taken && Date.now() - taken.mtimeMs < claimMaxAgeMs) {
      return { dir, claimed: true, fillerAlive: false };
    }
    const stored = await fs.readFile(metaFile(dir), 'utf8').then(parseMeta, () => undefined);
    if (taken || !stored) {
      return { dir, claimed: false, fillerAlive: false };
    }
    return { dir, meta: stored.meta, claimed: false, fillerAlive: stored.pid !== undefined && alive(stored.pid) };
  }

  async writeMeta(dir: string, meta: PoolMeta): Promise<void> {
    await fs.mkdir(path.dirname(dir), { recursive: true });
    const tmp = `${metaFile(dir)}.tmp-${process.pid}`;
    await fs.writeFile(tmp, JSON.stringify({ ...meta, pid: process.pid }));
    await fs.rename(tmp, metaFile(dir));
    await fs.rm(takenFile(dir), { force: true });
  }

  async claim(dir: string): Promise<boolean> {
    try {
      await fs.rename(metaFile(dir), takenFile(dir));
    } catch {
      return false;
    }
    const now = new Date();
    await fs.utimes(takenFile(dir), now, now).catch(() => undefined);
    return true;
  }

  async dropMeta(dir: string): Promise<void> {
    await Promise.all([metaFile(dir), takenFile(dir), `${dir}.setup.log`].map((f) => fs.rm(f, { force: true })));
  }

  async stamp(root: string, relPaths: readonly string[]): Promise<string> {
    const parts = await Promise.all(
      relPaths.map(async (rel) => {
        const s = await fs.lstat(path.join(root, rel)).catch(() => undefined);
        return s ? `${rel}:${s.size}:${Math.floor(s.mtimeMs)}` : `${rel}:-`;
      }),
    );
    return parts.join('\n');
  }

  async readSetupLog(dir: string): Promise<string> {
    return (await fs.readFile(`${dir}.setup.log`, 'utf8').catch(() => '')).slice(-2000);
  }

  async bytes(dir: string): Promise<number> {
    let total = 0;
    const walk = async (folder: string): Promise<void> => {
      const entries = await fs.readdir(folder, { withFileTypes: true }).catch(() => []);
      for (const e of entries) {
        const full = path.join(folder, e.name);
        if (e.isDirectory()) {
          await walk(full);
        } else {
          const s = await fs.lstat(full).catch(() => undefined);
          total += s ? (s.blocks !== undefined && s.blocks > 0 ? s.blocks * 512 : s.size) : 0;
        }
      }
    };
    await walk(dir);
    return total;
  }

  runSetup(argv: readonly string[], cwd: string, logPath: string): Promise<boolean> {
    return new Promise((resolve) => {
      let fd: number | undefined;
      try {
        fd = openSync(logPath, 'w');
        const child = spawn(argv[0], argv.slice(1), { cwd, stdio: ['ignore', fd, fd], windowsHide: true });
        lowerPriority(child.pid);
        child.on('error', () => resolve(false));
        child.on('close', (code) => resolve(code === 0));
      } catch {
        resolve(false);
      } finally {
        if (fd !== undefined) {
          closeSync(fd);
        }
      }
    });
  }

  async remember(repoRoot: string, poolDir: string, present: boolean): Promise<void> {
    const before = await readPoolList(this.listFile);
    const others = before.filter((p) => p.poolDir !== poolDir);
    const next = present ? [...others, { repoRoot, poolDir }] : others;
    if (JSON.stringify(next) !== JSON.stringify(before)) {
      await writePoolList(this.listFile, next);
    }
    if (!present) {
      // Only once empty (a removal's files may still be deleted in `.removing/`).
      await fs.rmdir(poolDir).catch(() => undefined);
    }
  }

  watchHead(repoRoot: string, onMove: () => void): Disposable | undefined {
    const gitDir = mainGitDir(repoRoot);
    if (!gitDir) {
      return undefined;
    }
    const later = debounce(onMove, 1000);
    const watchers: FSWatcher[] = [];
    const add = (target: string, wanted?: string) => {
      try {
        const w = watch(target, (_event, name) => {
          if (wanted === undefined || String(name) === wanted) {
            later.trigger();
          }
        });
        w.on('error', () => w.close());
        watchers.push(w);
      } catch {
        // Not watchable here: the pool still refreshes after each dispatch.
      }
    };
    // The reflog of HEAD grows on every commit, checkout and reset; HEAD itself changes on a checkout.
    add(gitDir, 'HEAD');
    if (existsSync(path.join(gitDir, 'logs', 'HEAD'))) {
      add(path.join(gitDir, 'logs', 'HEAD'));
    }
    return {
      dispose: () => {
        later.dispose();
        watchers.forEach((w) => w.close());
      },
    };
  }
}

function parseMeta(text: string): { meta: PoolMeta; pid?: number } | undefined {
  try {
    const raw = JSON.parse(text) as PoolMeta & { pid?: number };
    if ((raw.state !== 'ready' && raw.state !== 'filling') || typeof raw.head !== 'string') {
      return undefined;
    }
    const { pid, ...meta } = raw;
    return { meta: { ...meta, includes: Array.isArray(meta.includes) ? meta.includes : [] }, pid };
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The git dir of a repository's main worktree; undefined when `repoRoot/.git` is no folder (a linked worktree). */
function mainGitDir(repoRoot: string): string | undefined {
  const dotGit = path.join(repoRoot, '.git');
  try {
    return statSync(dotGit).isDirectory() ? dotGit : undefined;
  } catch {
    return undefined;
  }
}
