/**
 * Where a dispatch starts, read from the repository's own files instead of a git process (one
 * `rev-parse` costs 15–30 ms here; a dispatch's whole overhead over `git worktree add` is ~40 ms).
 * Used only for a folder git itself located earlier in this session (so git checked ownership,
 * the repository's layout and its config once), while nothing that could change git's answer
 * changed: the folder, the repository's `.git`, and the config files git reads (they decide where
 * the post-checkout hook is). Only the files ref backend is read; anything unexpected (reftable, a
 * HEAD that is neither a branch nor a commit, an unborn branch, a prefix with glob characters)
 * answers undefined, and the caller asks git.
 */
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { isFullSha } from './refParsers';

/** What git said about a folder when it located it, plus where its HEAD is. */
export interface KnownRepository {
  readonly repoRoot: string;
  readonly gitDir: string;
  readonly commonDir: string;
  readonly hookPath: string;
  /** The stats of the files whose change would change git's answer (see signature). */
  readonly signature: string;
  readonly at: number;
}

/** What was read: HEAD's commit and the branches under the prefix. */
export interface HeadRead {
  readonly sha: string;
  readonly branches: Set<string>;
}

const headsPrefix = 'refs/heads/';

/**
 * The repository's git dir for `repoRoot` (`.git` itself, or where a `.git` file's `gitdir:` points),
 * undefined when the repository is not laid out in the files ref backend.
 */
export async function gitDirOf(repoRoot: string, commonDir: string): Promise<string | undefined> {
  const dotGit = path.join(repoRoot, '.git');
  const stat = await fs.stat(dotGit).catch(() => undefined);
  let gitDir: string | undefined;
  if (stat?.isDirectory()) {
    gitDir = dotGit;
  } else if (stat?.isFile()) {
    const line = /^gitdir: (.+)$/m.exec(await fs.readFile(dotGit, 'utf8'))?.[1]?.trim();
    gitDir = line ? path.resolve(repoRoot, line) : undefined;
  }
  const heads = await fs.stat(path.join(commonDir, 'refs', 'heads')).catch(() => undefined);
  const reftable = await fs.stat(path.join(commonDir, 'reftable')).catch(() => undefined);
  return gitDir && heads?.isDirectory() && !reftable ? gitDir : undefined;
}

/** The config files git reads for `known`'s folder (`core.hooksPath` among them). */
function configFiles(known: Pick<KnownRepository, 'gitDir' | 'commonDir'>): string[] {
  const home = os.homedir();
  const xdg = process.env.XDG_CONFIG_HOME || path.join(home, '.config');
  return [
    path.join(known.commonDir, 'config'),
    path.join(known.commonDir, 'config.worktree'),
    path.join(known.gitDir, 'config.worktree'),
    path.join(home, '.gitconfig'),
    path.join(xdg, 'git', 'config'),
    '/etc/gitconfig',
  ];
}

/**
 * What would change git's answer for `folder`: the folder's and the repository's `.git`'s identity
 * (a `.git` file's text too), and the text of each config file. Texts, not times: git rewrites its
 * config when a branch is deleted, most often to the same text. Never rejects: what cannot be read
 * is part of the signature as absent.
 */
export async function signature(
  folder: string,
  known: Pick<KnownRepository, 'repoRoot' | 'gitDir' | 'commonDir'>,
): Promise<string> {
  const dotGit = path.join(known.repoRoot, '.git');
  const parts = await Promise.all([
    fs.stat(folder).then((s) => `${s.ino}`, absent),
    fs
      .stat(dotGit)
      .then(async (s) => (s.isFile() ? `${s.ino}:${await fs.readFile(dotGit, 'utf8')}` : `${s.ino}`))
      .catch(absent),
    ...configFiles(known).map((file) => fs.readFile(file, 'utf8').then((text) => `${text.length}:${text}`, absent)),
  ]);
  return parts.join('\0');
}

function absent(): string {
  return '-';
}

/** HEAD's commit and the local branches under `branchPrefix`, or undefined when git must be asked. */
export async function readHead(known: KnownRepository, branchPrefix: string): Promise<HeadRead | undefined> {
  if (/[*?[\\]/.test(branchPrefix)) {
    return undefined;
  }
  const head = (await readText(path.join(known.gitDir, 'HEAD')))?.trim();
  if (head === undefined) {
    return undefined;
  }
  let sha: string | undefined;
  if (isFullSha(head)) {
    sha = head.toLowerCase();
  } else if (head.startsWith(`ref: ${headsPrefix}`) && !/(^|\/)\.\.?(\/|$)/.test(head)) {
    sha = await branchTip(known.commonDir, head.slice('ref: '.length));
  }
  if (!sha) {
    return undefined;
  }
  const branches = await branchesUnder(known.commonDir, branchPrefix);
  return branches && { sha, branches };
}

/**
 * The commit a branch points at: its loose ref file, else its line in packed-refs. The loose file
 * is read first: `git pack-refs` writes packed-refs before it deletes the loose files, so a ref
 * being packed is found in one or the other.
 */
async function branchTip(commonDir: string, ref: string): Promise<string | undefined> {
  const loose = (await readText(path.join(commonDir, ...ref.split('/'))))?.trim();
  if (loose !== undefined) {
    return isFullSha(loose) ? loose.toLowerCase() : undefined;
  }
  for (const [sha, name] of await packedRefs(commonDir)) {
    if (name === ref) {
      return sha;
    }
  }
  return undefined;
}

/** Short names of the branches git's `--branches=<prefix>` lists: every branch under `<prefix>/` (all for ''). */
async function branchesUnder(commonDir: string, branchPrefix: string): Promise<Set<string> | undefined> {
  const prefix = branchPrefix.replace(/\/+$/, '');
  const under = prefix ? `${prefix}/` : '';
  const names = new Set<string>();
  const top = path.join(commonDir, 'refs', 'heads', ...under.split('/').filter(Boolean));
  if (!(await looseNames(top, under, names))) {
    return undefined;
  }
  for (const [, ref] of await packedRefs(commonDir)) {
    if (ref.startsWith(headsPrefix + under)) {
      names.add(ref.slice(headsPrefix.length));
    }
  }
  return names;
}

/** Adds the loose branch names under `dir` (named `under…`); false when a listing failed otherwise than by absence. */
async function looseNames(dir: string, under: string, names: Set<string>): Promise<boolean> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch (e) {
    return isAbsent(e);
  }
  for (const entry of entries) {
    if (entry.isDirectory()) {
      if (!(await looseNames(path.join(dir, entry.name), `${under}${entry.name}/`, names))) {
        return false;
      }
    } else if (entry.isFile() && !entry.name.endsWith('.lock')) {
      names.add(under + entry.name);
    }
  }
  return true;
}

/** packed-refs as [sha, ref] pairs (peeled `^` lines and the header left out); none when there is no file. */
async function packedRefs(commonDir: string): Promise<Array<[string, string]>> {
  const text = (await readText(path.join(commonDir, 'packed-refs'))) ?? '';
  const pairs: Array<[string, string]> = [];
  for (const line of text.split('\n')) {
    const space = line.indexOf(' ');
    const sha = line.slice(0, space);
    if (space > 0 && isFullSha(sha)) {
      pairs.push([sha.toLowerCase(), line.slice(space + 1).trimEnd()]);
    }
  }
  return pairs;
}

/** A file's text; undefined when it is not there (or is a folder). */
async function readText(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (e) {
    if (isAbsent(e) || (e as NodeJS.ErrnoException).code === 'EISDIR') {
      return undefined;
    }
    throw e;
  }
}

function isAbsent(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
