/** FileSystemPort on node:fs/promises. */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { AgentError } from '../core/errors';
import type { FileSystemPort, TransferReport } from '../core/ports';
import { readLog } from './logReader';

type Skipped = TransferReport['skipped'][number];

/** Whether something is at `p` (a symbolic link that leads nowhere counts as nothing). */
export async function pathExists(p: string): Promise<boolean> {
  try {
    await fs.access(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * `p` absolute, its symbolic links resolved (as it is when it does not exist), and case-folded on
 * Windows: two spellings of one folder give the same string.
 */
export async function canonicalPath(p: string): Promise<string> {
  const resolved = path.resolve(p);
  const real = await fs.realpath(resolved).catch(() => resolved);
  return process.platform === 'win32' ? real.toLowerCase() : real;
}

export class NodeFileSystem implements FileSystemPort {
  exists(p: string): Promise<boolean> {
    return pathExists(p);
  }

  async mkdirp(p: string): Promise<void> {
    await fs.mkdir(p, { recursive: true });
  }

  /** Recursive and forgiving of a folder that is already gone; retries the busy-file errors of Windows. */
  async removeDir(p: string): Promise<void> {
    const target = path.resolve(p);
    if (p.trim() === '' || target === path.parse(target).root) {
      throw new AgentError('refusingToRemove', { path: p });
    }
    await fs.rm(target, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
  }

  async appendText(p: string, text: string): Promise<void> {
    await fs.mkdir(path.dirname(p), { recursive: true });
    await fs.appendFile(p, text);
  }

  async writeText(p: string, text: string): Promise<void> {
    await fs.mkdir(path.dirname(p), { recursive: true });
    await fs.writeFile(p, text);
  }

  async readLogTail(p: string, offset: number, maxBytes: number): Promise<string> {
    const { end } = await readLog(p, offset, offset, 0);
    return (await readLog(p, Math.max(offset, end - maxBytes), undefined, maxBytes)).text;
  }

  async copyInto(srcRoot: string, dstRoot: string, relPaths: readonly string[]): Promise<TransferReport> {
    const roots = await realRoots(srcRoot, dstRoot);
    const done: string[] = [];
    const skipped: Skipped[] = [];
    for (const rel of relPaths) {
      const problem = await transferOne(roots, rel, 'copy');
      if (problem) {
        skipped.push({ path: rel, reason: problem });
      } else {
        done.push(rel);
      }
    }
    return { done, skipped };
  }

  async linkInto(srcRoot: string, dstRoot: string, relPath: string): Promise<TransferReport> {
    const problem = await transferOne(await realRoots(srcRoot, dstRoot), relPath, 'link');
    return problem ? { done: [], skipped: [{ path: relPath, reason: problem }] } : { done: [relPath], skipped: [] };
  }
}

interface Roots {
  readonly src: string;
  readonly dst: string;
}

async function realRoots(srcRoot: string, dstRoot: string): Promise<Roots> {
  const [src, dst] = await Promise.all([fs.realpath(srcRoot), fs.realpath(dstRoot)]);
  return { src, dst };
}

/** Copies (a file or symlink) or links (a folder) one path; returns why it did not, or undefined. */
async function transferOne(roots: Roots, rel: string, how: 'copy' | 'link'): Promise<string | undefined> {
  const segments = rel.split(/[\\/]/).filter((s) => s !== '' && s !== '.');
  if (path.isAbsolute(rel) || segments.length === 0 || segments.some((s) => s === '..' || s.toLowerCase() === '.git')) {
    return 'not a path inside the repository';
  }
  const src = path.join(roots.src, ...segments);
  try {
    // Reading through a symlinked folder is fine as long as it stays in the repository.
    if (!isInside(roots.src, await fs.realpath(path.dirname(src)))) {
      return 'its folder is a symlink that leads out of the repository';
    }
    const stat = await fs.lstat(src);
    if (how === 'link' ? !stat.isDirectory() : stat.isDirectory()) {
      return how === 'link' ? 'not a folder' : 'a folder';
    }
    if (how === 'copy' && !stat.isFile() && !stat.isSymbolicLink()) {
      return 'not a regular file';
    }
    const parent = await ensureFolderInside(roots.dst, segments.slice(0, -1));
    if (parent === undefined) {
      return 'its folder in the worktree is a symlink or file that leads out of it';
    }
    const dst = path.join(parent, segments[segments.length - 1]);
    if (how === 'link') {
      // 'junction': a folder link that Windows lets anyone create; other systems ignore the type.
      await fs.symlink(src, dst, 'junction');
    } else if (stat.isSymbolicLink()) {
      await fs.symlink(await fs.readlink(src), dst);
    } else {
      // EXCL: never overwrite, nor write through a symlink that is already at the destination.
      await fs.copyFile(src, dst, fs.constants.COPYFILE_EXCL | fs.constants.COPYFILE_FICLONE);
      await fs.chmod(dst, stat.mode & 0o7777);
    }
    return undefined;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'EEXIST' ? 'already in the worktree' : code === 'ENOENT' ? 'not found' : (e as Error).message;
  }
}

/**
 * Creates the folders `segments` under `root` one level at a time, so that no folder is made
 * through a symlink that leaves `root`; returns the real path of the last, or undefined.
 */
async function ensureFolderInside(root: string, segments: readonly string[]): Promise<string | undefined> {
  let current = root;
  for (const segment of segments) {
    const next = path.join(current, segment);
    try {
      await fs.mkdir(next);
      current = next;
      continue;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw e;
      }
    }
    const real = await fs.realpath(next);
    if (!isInside(root, real) || !(await fs.stat(real)).isDirectory()) {
      return undefined;
    }
    current = real;
  }
  return current;
}

function isInside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}
