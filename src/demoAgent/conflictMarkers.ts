/** The demo agent's `resolve` step: git's conflict blocks replaced by the side asked for. Pure. */

export type KeepSide = 'ours' | 'theirs' | 'both';

export type Resolution =
  | { readonly ok: true; readonly text: string; readonly blocks: number }
  | { readonly ok: false; readonly message: string };

/**
 * Replaces each block `<<<<<<< … [||||||| base …] ======= … >>>>>>> …` of `text` with its first side
 * (ours), its second (theirs), or both, ours first. Fails when there is no block, or one is not closed.
 */
export function resolveConflictBlocks(text: string, keep: KeepSide): Resolution {
  const lines = text.split('\n');
  const out: string[] = [];
  let blocks = 0;
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith('<<<<<<<')) {
      out.push(lines[i]);
      continue;
    }
    const ours: string[] = [];
    const theirs: string[] = [];
    let part: 'ours' | 'base' | 'theirs' = 'ours';
    let j = i + 1;
    for (; j < lines.length && !(part === 'theirs' && lines[j].startsWith('>>>>>>>')); j++) {
      if (part !== 'theirs' && lines[j].startsWith('|||||||')) {
        part = 'base';
      } else if (part !== 'theirs' && lines[j].startsWith('=======')) {
        part = 'theirs';
      } else if (part === 'ours') {
        ours.push(lines[j]);
      } else if (part === 'theirs') {
        theirs.push(lines[j]);
      }
    }
    if (j >= lines.length) {
      return { ok: false, message: `the conflict block at line ${i + 1} is not closed by >>>>>>>` };
    }
    out.push(...(keep === 'ours' ? ours : keep === 'theirs' ? theirs : [...ours, ...theirs]));
    blocks++;
    i = j;
  }
  return blocks === 0
    ? { ok: false, message: 'no conflict markers in the file' }
    : { ok: true, text: out.join('\n'), blocks };
}
