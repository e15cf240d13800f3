/**
 * The follow-up Ask Agent to Resolve Conflicts sends: which branch was merged into the agent's, and
 * for each conflicted file its conflict blocks as they are in the worktree (both sides between the
 * markers, a few lines around), bounded like Fix Failing Check's output.
 */

/** Most bytes of file excerpts in one follow-up; files beyond it are named only. */
export const conflictPromptBytes = 16 * 1024;
/** Lines kept before and after each conflict block. */
const contextLines = 3;

export interface ConflictedFile {
  /** Relative to the top of the agent's worktree. */
  readonly path: string;
  /** Its text on disk, markers included; undefined for a binary or deleted file. */
  readonly text?: string;
}

export interface ConflictPromptInput {
  /** The agent's branch (ours). */
  readonly branch: string;
  /** The branch merged into it (theirs). */
  readonly target: string;
  /** What was merged, in words (lower case), when it is not a branch: a parent agent's work. */
  readonly theirs?: string;
  readonly files: readonly ConflictedFile[];
  /** The user's own words, added at the end. */
  readonly instructions?: string;
}

export function conflictPrompt(input: ConflictPromptInput): string {
  const { branch, files } = input;
  const target = input.theirs ?? input.target;
  const merged = input.theirs ? `${target[0].toUpperCase()}${target.slice(1)}` : `The branch ${target}`;
  const lines = [
    `${merged} was merged into your branch ${branch} in this folder, and the merge stopped with ` +
      `conflicts in ${files.length} file(s). The merge is still in progress.`,
    'Resolve every conflict: keep the intent of both sides and remove the conflict markers, then commit the ' +
      'merge (git add the files, then git commit).',
    `In each block, the lines after <<<<<<< are your branch (${branch}); the lines before >>>>>>> are ${target}.`,
  ];
  const perFile = Math.max(1024, Math.floor(conflictPromptBytes / Math.max(1, files.length)));
  let used = 0;
  const unshown: string[] = [];
  for (const file of files) {
    if (used >= conflictPromptBytes) {
      unshown.push(file.path);
      continue;
    }
    const excerpt = file.text === undefined ? '' : firstBytes(markerExcerpt(file.text), perFile);
    used += byteLength(excerpt);
    lines.push('', `File ${file.path}:`);
    if (excerpt === '') {
      lines.push(
        file.text === undefined
          ? '(binary, or deleted on one side: see git status for how it conflicts)'
          : '(no conflict markers in the file: see git status for how it conflicts)',
      );
    } else {
      const fence = fenceFor(excerpt);
      lines.push(fence, excerpt, fence);
    }
  }
  if (unshown.length > 0) {
    lines.push('', `Also conflicted (open them for their markers): ${unshown.join(', ')}`);
  }
  const extra = input.instructions?.trim();
  if (extra) {
    lines.push('', extra);
  }
  return lines.join('\n');
}

/**
 * Every conflict block (`<<<<<<<` to `>>>>>>>`) of `text` with `contextLines` lines around it, gaps
 * marked with `…`; '' when there is none. A block left open runs to the end.
 */
export function markerExcerpt(text: string): string {
  const lines = text.replace(/\r?\n$/, '').split('\n');
  const ranges: [number, number][] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith('<<<<<<<')) {
      continue;
    }
    let end = i + 1;
    while (end < lines.length && !lines[end].startsWith('>>>>>>>')) {
      end++;
    }
    const from = Math.max(0, i - contextLines);
    const to = Math.min(lines.length - 1, end + contextLines);
    const last = ranges.at(-1);
    if (last && from <= last[1] + 1) {
      last[1] = to;
    } else {
      ranges.push([from, to]);
    }
    i = end;
  }
  const out = ranges.flatMap(([from, to]) => [...(from > 0 ? ['…'] : []), ...lines.slice(from, to + 1)]);
  if (ranges.length > 0 && ranges[ranges.length - 1][1] < lines.length - 1) {
    out.push('…');
  }
  return out.join('\n');
}

/** A code fence longer than any run of backticks in `text`, so the text cannot close it. */
function fenceFor(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
}

function byteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** The start of `text` within `max` bytes, cut at a line end when it must be cut. */
function firstBytes(text: string, max: number): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= max) {
    return text;
  }
  let end = max;
  // A cut inside a character would leave U+FFFD: end before the character it would split.
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) {
    end--;
  }
  const cut = new TextDecoder().decode(bytes.subarray(0, end));
  const newline = cut.lastIndexOf('\n');
  return `${newline > 0 ? cut.slice(0, newline) : cut}\n… (cut: open the file for the rest)`;
}
