// "Untouched", made checkable: a record of everything a git worktree (or a plain folder) holds, and
// a comparison that names each difference. Reads only: the real git binary with
// GIT_OPTIONAL_LOCKS=0 (so recording never refreshes the index) and node:fs.
//
// Two kinds of fact are recorded:
// - content: HEAD, every ref, the index entries, each file's kind, mode and bytes, a merge or
//   rebase in progress. assertRestored compares these: "put back as it was".
// - traces: the index file's bytes and its stat ("index bytes", "index stat"), each file's and folder's mtime/ctime/inode, ORIG_HEAD,
//   the HEAD reflog. assertUntouched compares these too: "never written at all".
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface WorkspaceRecord {
  readonly dir: string;
  readonly kind: 'worktree' | 'folder';
  readonly content: ReadonlyMap<string, string>;
  readonly traces: ReadonlyMap<string, string>;
}

export interface WorkspaceChange {
  readonly key: string;
  readonly before: string | undefined;
  readonly after: string | undefined;
  /** A trace (time, inode, raw index bytes) rather than content. */
  readonly trace: boolean;
}

/** Files in a worktree's own git dir that mean an operation is in progress (content) or happened (traces). */
const inProgress = [
  'MERGE_HEAD',
  'MERGE_MSG',
  'MERGE_MODE',
  'MERGE_AUTOSTASH',
  'AUTO_MERGE',
  'SQUASH_MSG',
  'CHERRY_PICK_HEAD',
  'REVERT_HEAD',
  'REBASE_HEAD',
  'BISECT_LOG',
  'rebase-merge',
  'rebase-apply',
  'sequencer',
];
const happened = ['ORIG_HEAD', 'COMMIT_EDITMSG', 'FETCH_HEAD', 'MERGE_RR', 'logs/HEAD'];

function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.toUpperCase().startsWith('GIT_')) {
      env[key] = value;
    }
  }
  env.GIT_OPTIONAL_LOCKS = '0';
  return env;
}

function git(cwd: string, args: string[], okCodes: number[] = [0]): string {
  try {
    return execFileSync('git', args, {
      cwd,
      env: gitEnv(),
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (e) {
    const status = (e as { status?: number }).status;
    if (status !== undefined && status !== null && okCodes.includes(status)) {
      return (e as { stdout?: string }).stdout ?? '';
    }
    throw e;
  }
}

const nulList = (text: string) => text.split('\0').filter((s) => s !== '');

/** Bytes as a short readable value: the text itself when short and textual, else size and hash. */
function describeBytes(bytes: Buffer): string {
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  if (bytes.length <= 80 && !bytes.includes(0)) {
    const text = bytes.toString('utf8');
    if (Buffer.from(text, 'utf8').equals(bytes)) {
      return `${JSON.stringify(text)} (sha256 ${hash})`;
    }
  }
  return `${bytes.length} bytes, sha256 ${hash}`;
}

function statTrace(stat: fs.BigIntStats): string {
  return `mtime ${stat.mtimeNs} ns, ctime ${stat.ctimeNs} ns, inode ${stat.ino}`;
}

interface Maps {
  readonly content: Map<string, string>;
  readonly traces: Map<string, string>;
}

/** Every entry under `dir` except `.git` (at any depth), with a class label from `classify`. */
function recordFiles(dir: string, maps: Maps, classify: (rel: string) => string): void {
  const walk = (rel: string) => {
    const full = rel === '' ? dir : path.join(dir, rel);
    for (const name of fs.readdirSync(full).sort()) {
      if (name === '.git') {
        continue;
      }
      const entry = rel === '' ? name : `${rel}/${name}`;
      const abs = path.join(dir, entry);
      const stat = fs.lstatSync(abs, { bigint: true });
      if (stat.isDirectory()) {
        maps.content.set(`folder ${entry}/`, 'folder');
        maps.traces.set(`folder ${entry}/`, `mtime ${stat.mtimeNs} ns`);
        walk(entry);
        continue;
      }
      const mode = (Number(stat.mode) & 0o7777).toString(8);
      const what = stat.isSymbolicLink()
        ? `symlink -> ${fs.readlinkSync(abs)}`
        : stat.isFile()
          ? `mode ${mode}, ${describeBytes(fs.readFileSync(abs))}`
          : 'special file';
      maps.content.set(`file ${entry}`, `${classify(entry)}, ${what}`);
      maps.traces.set(`file ${entry}`, statTrace(stat));
    }
  };
  const top = fs.lstatSync(dir, { bigint: true });
  maps.traces.set('folder ./', `mtime ${top.mtimeNs} ns`);
  walk('');
}

function recordGitState(dir: string, maps: Maps): void {
  const symbolic = git(dir, ['symbolic-ref', '--quiet', 'HEAD'], [1]).trim();
  const sha = git(dir, ['rev-parse', '--quiet', '--verify', 'HEAD'], [1]).trim();
  maps.content.set('HEAD', `${symbolic ? `on ${symbolic}` : 'detached'} at ${sha || '(no commit)'}`);

  // Ref names hold no spaces (git check-ref-format).
  for (const line of git(dir, ['for-each-ref', '--format=%(refname) %(objectname) %(symref)']).split('\n')) {
    const [name, object, symref] = line.split(' ');
    if (name) {
      maps.content.set(`ref ${name}`, symref ? `-> ${symref} (${object})` : object);
    }
  }

  // -v: lowercase tags mark assume-unchanged entries; -s: mode, object, stage.
  for (const line of nulList(git(dir, ['ls-files', '-z', '-v', '--stage']))) {
    const tab = line.indexOf('\t');
    maps.content.set(`index entry ${line.slice(tab + 1)}`, line.slice(0, tab));
  }

  const gitDir = git(dir, ['rev-parse', '--absolute-git-dir']).trim();
  const indexFile = path.resolve(dir, git(dir, ['rev-parse', '--git-path', 'index']).trim());
  const index = fs.statSync(indexFile, { bigint: true, throwIfNoEntry: false });
  // Apart: git rewrites the index with the same bytes now and then (a refresh), which leaves its content as it was.
  maps.traces.set('index bytes', index ? describeBytes(fs.readFileSync(indexFile)) : '(no index file)');
  maps.traces.set('index stat', index ? statTrace(index) : '(no index file)');
  for (const [names, map] of [
    [inProgress, maps.content],
    [happened, maps.traces],
  ] as const) {
    for (const name of names) {
      const abs = path.join(gitDir, name);
      const stat = fs.statSync(abs, { bigint: true, throwIfNoEntry: false });
      if (stat?.isDirectory()) {
        map.set(`git dir ${name}`, `folder of ${fs.readdirSync(abs).sort().join(', ')}`);
      } else if (stat) {
        map.set(`git dir ${name}`, `${describeBytes(fs.readFileSync(abs))}, ${statTrace(stat)}`);
      }
    }
  }
}

/**
 * Records the worktree at `dir` (the top of a main or linked worktree): HEAD, every ref of the
 * repository (refs/parallel-agents and refs/stash included), the index (entries and raw file), every
 * file and folder except .git with its class (tracked, untracked, ignored), mode, bytes and times,
 * and the operation files of the worktree's git dir.
 */
export function recordWorkspace(dir: string): WorkspaceRecord {
  const top = path.resolve(dir);
  const maps: Maps = { content: new Map(), traces: new Map() };
  recordGitState(top, maps);
  const tracked = new Set(nulList(git(top, ['ls-files', '-z', '--cached'])));
  const untracked = new Set(nulList(git(top, ['ls-files', '-z', '--others', '--exclude-standard'])));
  const ignored = new Set(nulList(git(top, ['ls-files', '-z', '--others', '--ignored', '--exclude-standard'])));
  recordFiles(top, maps, (rel) =>
    tracked.has(rel)
      ? 'tracked'
      : untracked.has(rel)
        ? 'untracked'
        : ignored.has(rel)
          ? 'ignored'
          : 'not listed by git',
  );
  for (const rel of tracked) {
    if (!maps.content.has(`file ${rel}`) && !maps.content.has(`folder ${rel}/`)) {
      maps.content.set(`file ${rel}`, 'tracked, missing from the disk');
    }
  }
  return { dir: top, kind: 'worktree', ...maps };
}

/** Records a plain folder (not a git worktree): every file and folder with its mode, bytes and times. */
export function recordFolder(dir: string): WorkspaceRecord {
  const top = path.resolve(dir);
  const maps: Maps = { content: new Map(), traces: new Map() };
  recordFiles(top, maps, () => 'in the folder');
  return { dir: top, kind: 'folder', ...maps };
}

function record(like: WorkspaceRecord): WorkspaceRecord {
  return like.kind === 'worktree' ? recordWorkspace(like.dir) : recordFolder(like.dir);
}

function differences(
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
  trace: boolean,
): WorkspaceChange[] {
  const keys = [...new Set([...before.keys(), ...after.keys()])].sort();
  return keys
    .filter((key) => before.get(key) !== after.get(key))
    .map((key) => ({ key, before: before.get(key), after: after.get(key), trace }));
}

/**
 * What differs between `before` and the state of its folder now; `contentOnly` leaves out traces
 * (times, inodes, raw index bytes, ORIG_HEAD, the HEAD reflog).
 */
export function workspaceChanges(before: WorkspaceRecord, options: { contentOnly?: boolean } = {}): WorkspaceChange[] {
  const after = record(before);
  const changes = differences(before.content, after.content, false);
  if (!options.contentOnly) {
    // A file that came or went is reported once, as content.
    const reported = new Set(changes.filter((c) => c.before === undefined || c.after === undefined).map((c) => c.key));
    changes.push(...differences(before.traces, after.traces, true).filter((c) => !reported.has(c.key)));
  }
  return changes;
}

export function describeChanges(changes: readonly WorkspaceChange[]): string {
  return changes
    .map(
      (c) =>
        `  ${c.key}${c.trace ? ' [written]' : ''}:\n      before: ${c.before ?? '(absent)'}\n      after:  ${c.after ?? '(absent)'}`,
    )
    .join('\n');
}

export interface UntouchedOptions {
  /** Keys (as reported, e.g. "ref refs/heads/main") that are expected to change and are left out. */
  readonly except?: readonly string[];
}

function assertNoChanges(
  before: WorkspaceRecord,
  contentOnly: boolean,
  what: string,
  message: string | undefined,
  options: UntouchedOptions,
): void {
  const except = new Set(options.except ?? []);
  const changes = workspaceChanges(before, { contentOnly }).filter((c) => !except.has(c.key));
  if (changes.length > 0) {
    assert.fail(
      `${message ? `${message}: ` : ''}${before.dir} was ${what} (${changes.length} difference${changes.length === 1 ? '' : 's'}):\n${describeChanges(changes)}`,
    );
  }
}

/** Fails, naming every difference, unless nothing in the folder was written since `before` was recorded. */
export function assertUntouched(before: WorkspaceRecord, message?: string, options: UntouchedOptions = {}): void {
  assertNoChanges(before, false, 'touched', message, options);
}

/** Fails unless the folder holds exactly what it held (files may have been rewritten with the same bytes). */
export function assertRestored(before: WorkspaceRecord, message?: string, options: UntouchedOptions = {}): void {
  assertNoChanges(before, true, 'not put back as it was', message, options);
}
