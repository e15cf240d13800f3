/**
 * Pure parsers for the git outputs changes.ts reads: a change set, status, path lists. Every input
 * is NUL-separated (`-z`), so paths arrive verbatim: no quoting, spaces and non-ASCII characters as
 * they are.
 */
import type { ChangedFile, FileChangeKind } from '../../core/agent';

/** One entry of `git diff --name-status -z -M <base>`. */
export interface TrackedChange {
  readonly path: string;
  readonly kind: Exclude<FileChangeKind, 'untracked'>;
  /** Set for renames: the path at the base commit. */
  readonly oldPath?: string;
}

/** Raw outputs a change set is built from. */
export interface ChangeSetOutputs {
  /**
   * `git diff --raw --numstat -z -M <base>` (one process), or the outputs of
   * `git diff --name-status -z -M <base>` and `git diff --numstat -z -M <base>` concatenated.
   */
  readonly diff: string;
  /** `git ls-files --others --exclude-standard -z` */
  readonly untracked: string;
}

/** Lines added and removed in one file, as numstat counts them. */
export interface LineCounts {
  readonly added: number;
  readonly removed: number;
}

export interface ParsedDiff {
  readonly changes: TrackedChange[];
  /** Paths (the new path of a rename) whose numstat is `-\t-`: binary to git. */
  readonly binary: Set<string>;
  /** Numstat's counts of the text files, by path (the new path of a rename). */
  readonly counts: Map<string, LineCounts>;
}

function splitNul(output: string): string[] {
  const parts = output.split('\0');
  // Every record ends with NUL, so the last part (split gives one at least) is empty, or a stray newline.
  if (parts[parts.length - 1].trim() === '') {
    parts.pop();
  }
  return parts;
}

/**
 * Statuses: A added, M modified, D deleted, R<score> renamed (old, new), C<score> copied (source,
 * copy), T type change, U unmerged, X unknown, B broken pair. A copy is a new file; the others
 * that are neither added, deleted nor renamed are modifications of a file that exists on both sides.
 */
function toChange(status: string, first: string, second: string | undefined): TrackedChange {
  const letter = status.charAt(0);
  // Only R and C records have a second path.
  if (second !== undefined) {
    return letter === 'R' ? { path: second, kind: 'renamed', oldPath: first } : { path: second, kind: 'added' };
  }
  return { path: first, kind: letter === 'A' ? 'added' : letter === 'D' ? 'deleted' : 'modified' };
}

const numstatRecord = /^(\d+|-)\t(\d+|-)\t/;
const nameStatusRecord = /^[A-Z]\d*$/;

/**
 * Parses `-z` diff output made of any mix of records:
 * - raw: `:srcmode dstmode srcsha dstsha STATUS\0path\0` (two paths for R and C),
 * - name-status: `STATUS\0path\0` (two paths for R and C),
 * - numstat: `added\tdeleted\tpath\0`, or `added\tdeleted\t\0old\0new\0` for a rename.
 * Paths are taken positionally, so a path that looks like a record start is still a path.
 */
export function parseDiff(output: string): ParsedDiff {
  const parts = splitNul(output);
  const changes: TrackedChange[] = [];
  const binary = new Set<string>();
  const counts = new Map<string, LineCounts>();
  let i = 0;
  while (i < parts.length) {
    const record = parts[i++];
    const numstat = numstatRecord.exec(record);
    if (numstat) {
      let path = record.slice(numstat[0].length);
      if (path === '') {
        i++; // the old path of a rename
        path = parts[i++] ?? '';
      }
      if (path === '') {
        continue;
      }
      if (numstat[1] === '-' && numstat[2] === '-') {
        binary.add(path);
      } else if (numstat[1] !== '-' && numstat[2] !== '-') {
        counts.set(path, { added: Number(numstat[1]), removed: Number(numstat[2]) });
      }
      continue;
    }
    const status = record.startsWith(':')
      ? record.slice(record.lastIndexOf(' ') + 1)
      : nameStatusRecord.test(record)
        ? record
        : undefined;
    if (status === undefined) {
      continue;
    }
    const twoPaths = status.startsWith('R') || status.startsWith('C');
    const first = parts[i++];
    const second = twoPaths ? parts[i++] : undefined;
    if (first === undefined || (twoPaths && second === undefined)) {
      break;
    }
    changes.push(toChange(status, first, second));
  }
  return { changes, binary, counts };
}

/** `git diff --name-status -z -M <base>` (raw records are understood too). */
export function parseNameStatus(output: string): TrackedChange[] {
  return parseDiff(output).changes;
}

/** Paths (the new path of a rename) that `git diff --numstat -z` reports as binary: `-\t-\t`. */
export function parseNumstatBinaryPaths(output: string): Set<string> {
  return parseDiff(output).binary;
}

/** `git ls-files -z` and similar: one path per NUL-terminated record. */
export function parsePathList(output: string): string[] {
  return splitNul(output).filter((p) => p !== '');
}

/**
 * Number of entries in `git status --porcelain=v1 -z [--branch]`: each is `XY path\0`, and a rename
 * or copy (R or C in X or Y) is followed by one more record holding its original path. The
 * `## branch` header of --branch is not an entry.
 */
export function countStatusEntries(output: string): number {
  const parts = splitNul(output);
  let count = 0;
  let i = 0;
  while (i < parts.length) {
    const record = parts[i++];
    if (record.length < 4 || record.startsWith('## ')) {
      continue;
    }
    count++;
    const x = record.charAt(0);
    const y = record.charAt(1);
    if (x === 'R' || x === 'C' || y === 'R' || y === 'C') {
      i++;
    }
  }
  return count;
}

/** Code-unit order: stable across machines and locales, unlike localeCompare. */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * One entry per path, sorted by path, with numstat's line counts. `untrackedBinary` says which
 * untracked files look binary and `untrackedLines` how many lines the others hold (git's numstat
 * covers neither). A path both deleted from the index and present on disk as untracked exists on
 * both sides, so it is reported once, as modified, and its lines are not counted.
 */
export function buildChangeSet(
  outputs: ChangeSetOutputs,
  untrackedBinary: ReadonlySet<string> = new Set(),
  untrackedLines: ReadonlyMap<string, number> = new Map(),
): ChangedFile[] {
  const { changes, binary, counts } = parseDiff(outputs.diff);
  const byPath = new Map<string, ChangedFile>();
  for (const change of changes) {
    const isBinary = binary.has(change.path);
    const lines = isBinary ? undefined : counts.get(change.path);
    byPath.set(change.path, { ...change, binary: isBinary, ...lines });
  }
  for (const path of parsePathList(outputs.untracked)) {
    const tracked = byPath.get(path);
    const isBinary = untrackedBinary.has(path);
    const added = isBinary ? undefined : untrackedLines.get(path);
    byPath.set(
      path,
      tracked?.kind === 'deleted'
        ? { path, kind: 'modified', binary: isBinary }
        : { path, kind: 'untracked', binary: isBinary, ...(added !== undefined ? { added, removed: 0 } : {}) },
    );
  }
  return [...byPath.values()].sort((a, b) => comparePaths(a.path, b.path));
}

/** Counts lines as git's numstat does, chunk by chunk: line feeds, plus a last line without one. */
export class LineCounter {
  private feeds = 0;
  private last: number | undefined;

  /** A Buffer is searched natively (memchr): several times faster than a loop over its bytes. */
  push(bytes: Uint8Array): void {
    for (let i = bytes.indexOf(0x0a); i >= 0; i = bytes.indexOf(0x0a, i + 1)) {
      this.feeds++;
    }
    if (bytes.length > 0) {
      this.last = bytes[bytes.length - 1];
    }
  }

  get lines(): number {
    return this.feeds + (this.last !== undefined && this.last !== 0x0a ? 1 : 0);
  }
}

/** Git's own test for binary content: a NUL byte within the first 8000 bytes. */
export const binarySniffLength = 8000;

export function looksBinary(head: Uint8Array): boolean {
  const end = Math.min(head.length, binarySniffLength);
  for (let i = 0; i < end; i++) {
    if (head[i] === 0) {
      return true;
    }
  }
  return false;
}

/**
 * Every path in `git status --porcelain=v1 -z`: `XY path\0`, where a rename or copy is followed by
 * its original path, which is listed too (it changed: it is gone).
 */
export function parseStatusPaths(output: string): string[] {
  const parts = output.split('\0');
  const paths: string[] = [];
  let i = 0;
  while (i < parts.length) {
    const record = parts[i++];
    if (record.length < 4 || record.startsWith('## ')) {
      continue;
    }
    paths.push(record.slice(3));
    const x = record.charAt(0);
    const y = record.charAt(1);
    if ((x === 'R' || x === 'C' || y === 'R' || y === 'C') && i < parts.length) {
      paths.push(parts[i++]);
    }
  }
  return [...new Set(paths)];
}

/** Whether the status shows changes in the index (X column), i.e. something is staged. */
export function hasStagedChanges(output: string): boolean {
  const parts = output.split('\0');
  let i = 0;
  while (i < parts.length) {
    const record = parts[i++];
    if (record.length < 4 || record.startsWith('## ')) {
      continue;
    }
    const x = record.charAt(0);
    if (x !== ' ' && x !== '?' && x !== '!') {
      return true;
    }
    if (record.charAt(1) === 'R' || record.charAt(1) === 'C') {
      i++;
    }
  }
  return false;
}
