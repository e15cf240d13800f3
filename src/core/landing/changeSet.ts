/** Comparing change sets: whether a refresh changed anything the tree shows. */
import type { ChangedFile } from '../agent';

/** Whether two change sets (each sorted by path) describe the same files the same way. */
export function sameChangeSet(a: readonly ChangedFile[], b: readonly ChangedFile[]): boolean {
  if (a === b) {
    return true;
  }
  if (a.length !== b.length) {
    return false;
  }
  return a.every((x, i) => {
    const y = b[i];
    return x.path === y.path && x.kind === y.kind && x.oldPath === y.oldPath && x.binary === y.binary;
  });
}
