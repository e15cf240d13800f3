/** Comparing change sets (whether a refresh changed anything the tree shows) and adding them up. */
import type { ChangedFile } from '../agent';

/** Whether two change sets (each sorted by path) describe the same files the same way, line counts included. */
export function sameChangeSet(a: readonly ChangedFile[], b: readonly ChangedFile[]): boolean {
  // Stryker disable next-line ConditionalExpression,BlockStatement: equivalent, every() finds an array equal to itself
  if (a === b) {
    return true;
  }
  if (a.length !== b.length) {
    return false;
  }
  return a.every((x, i) => {
    const y = b[i];
    return (
      x.path === y.path &&
      x.kind === y.kind &&
      x.oldPath === y.oldPath &&
      x.binary === y.binary &&
      x.added === y.added &&
      x.removed === y.removed
    );
  });
}

/** What a change set adds up to: files, and the lines of those whose lines were counted. */
export interface ChangeStats {
  readonly files: number;
  readonly added: number;
  readonly removed: number;
  /** Text files whose lines are not known (a record from before counts, an untracked file too large to read). */
  readonly uncounted: number;
}

/** Sums a change set's line counts; a binary file is a file with no lines. */
export function changeStats(files: readonly ChangedFile[]): ChangeStats {
  let added = 0;
  let removed = 0;
  let uncounted = 0;
  for (const file of files) {
    if (file.added === undefined || file.removed === undefined) {
      uncounted += file.binary ? 0 : 1;
    } else {
      added += file.added;
      removed += file.removed;
    }
  }
  return { files: files.length, added, removed, uncounted };
}
