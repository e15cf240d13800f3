/**
 * What a reviewer agent is given, pure: the author's task and its diff against the base (unified,
 * 3 lines of context, new-side line numbers in the hunk headers), inside code fences, and the answer
 * format (reviewFindings.ts). The findings are then placed on lines of the diff, or kept as general
 * comments when their file or line is not in it.
 */
import type { LineChange } from './lineDiff';
import { type Finding, findingKeyword, noFindingsLine } from './reviewFindings';
import type { Lines } from './textLines';

/** The first line of every review request: how the demo agent tells one (demoAgent/reviewer.ts). */
export const reviewRequestLine = 'Parallel Agents review request: review the changes below; do not edit any file.';

const context = 3;

export interface FileDiff {
  readonly path: string;
  readonly kind: string;
  readonly base: Lines;
  readonly agent: Lines;
  readonly changes: readonly LineChange[];
}

export interface ReviewRequest {
  readonly task: string;
  /** The unified diff (fileDiffText of each file). */
  readonly diff: string;
  /** What the person asked the reviewer to look at; empty for none. */
  readonly focus?: string;
}

/** One file's unified diff: `--- a/…`, `+++ b/…`, then hunks with their `@@` headers. */
export function fileDiffText(file: FileDiff): string {
  const out = [`--- ${file.kind === 'added' || file.kind === 'untracked' ? '/dev/null' : `a/${file.path}`}`];
  out.push(`+++ ${file.kind === 'deleted' ? '/dev/null' : `b/${file.path}`}`);
  for (const group of hunks(file.changes)) {
    const first = group[0];
    const last = group[group.length - 1];
    const baseFrom = Math.max(0, first.baseStart - context);
    const agentFrom = Math.max(0, first.agentStart - context);
    const baseTo = Math.min(file.base.length, last.baseEnd + context);
    const agentTo = Math.min(file.agent.length, last.agentEnd + context);
    out.push(`@@ -${range(baseFrom, baseTo)} +${range(agentFrom, agentTo)} @@`);
    let b = baseFrom;
    for (const change of group) {
      for (; b < change.baseStart; b++) {
        out.push(` ${bare(file.base[b])}`);
      }
      out.push(...file.base.slice(change.baseStart, change.baseEnd).map((l) => `-${bare(l)}`));
      out.push(...file.agent.slice(change.agentStart, change.agentEnd).map((l) => `+${bare(l)}`));
      b = change.baseEnd;
    }
    for (; b < baseTo; b++) {
      out.push(` ${bare(file.base[b])}`);
    }
  }
  return out.join('\n');
}

/** Changes close enough to share their context lines, grouped into one hunk each. */
function hunks(changes: readonly LineChange[]): LineChange[][] {
  const groups: LineChange[][] = [];
  for (const change of changes) {
    const group = groups[groups.length - 1];
    const previous = group?.[group.length - 1];
    if (previous && change.baseStart - previous.baseEnd <= 2 * context) {
      group.push(change);
    } else {
      groups.push([change]);
    }
  }
  return groups;
}

/** A hunk header's `start,count`: an empty side starts at the line before it, as git writes it. */
function range(from: number, to: number): string {
  return `${to === from ? from : from + 1},${to - from}`;
}

function bare(line: string): string {
  // Stryker disable next-line Regex: equivalent, splitLines leaves each line one break, only at its end
  return line.replace(/\r\n$|[\r\n]$/, '');
}

/** A fence of backticks longer than any run of them in `text`, so nothing inside closes it. */
function fenceFor(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  return '`'.repeat(longest + 1);
}

/** The whole prompt of a reviewer run. Nothing outside the fences starts with a demo agent keyword. */
export function reviewerPrompt(request: ReviewRequest): string {
  const taskFence = fenceFor(request.task);
  const diffFence = fenceFor(request.diff);
  const focus = request.focus?.trim();
  return [
    reviewRequestLine,
    'Another agent was given this task:',
    `${taskFence}text`,
    request.task,
    taskFence,
    "Its changes against the commit it started from (a unified diff; '+' lines are its new lines):",
    `${diffFence}diff`,
    request.diff,
    diffFence,
    ...(focus ? ['What the person asked you to look at:', focus] : []),
    'Review these changes: bugs, missing cases, unclear code. You are read-only: change no file, run no command that writes.',
    `Answer with one line per finding, exactly in this form, the line number being the line in the NEW version of the file:`,
    `${findingKeyword} <path>:<line>: <what to change there>`,
    `(or ${findingKeyword} <path>:<first line>-<last line>: <what to change> for several lines).`,
    `When you find nothing worth a comment, answer with the single line ${noFindingsLine}`,
  ].join('\n');
}

/** A finding's place in the agent's changed files: its lines, or a general comment on `anchor`. */
export type PlacedFinding =
  | {
      readonly general: false;
      readonly path: string;
      readonly startLine: number;
      readonly endLine: number;
      readonly body: string;
    }
  | { readonly general: true; readonly path: string; readonly body: string };

/**
 * Places each finding on the agent's side of its diff: `lineCounts` has each changed text file the
 * agent kept, with its line count now. A path given as `a/x` or `b/x` (diff prefixes) names `x`. A
 * finding whose file is not there, or whose lines are past the file's end, becomes a general comment
 * on its file when that is there, else on the first file: its text then begins with the place named.
 */
export function placeFindings(findings: readonly Finding[], lineCounts: ReadonlyMap<string, number>): PlacedFinding[] {
  const first = [...lineCounts.keys()].sort()[0];
  return findings.map((finding): PlacedFinding => {
    const known = knownFile(finding.path, lineCounts);
    if (known && finding.endLine <= Math.max(known.count, 1)) {
      const { path } = known;
      return { general: false, path, startLine: finding.startLine, endLine: finding.endLine, body: finding.text };
    }
    const lines =
      finding.startLine === finding.endLine ? `${finding.startLine}` : `${finding.startLine}-${finding.endLine}`;
    return { general: true, path: known?.path ?? first, body: `${finding.path}:${lines}: ${finding.text}` };
  });
}

/** The file `path` names and its line count: the path itself, else the path without an `a/` or `b/` prefix. */
function knownFile(path: string, lineCounts: ReadonlyMap<string, number>): { path: string; count: number } | undefined {
  for (const name of /^[ab]\//.test(path) ? [path, path.slice(2)] : [path]) {
    const count = lineCounts.get(name);
    if (count !== undefined) {
      return { path: name, count };
    }
  }
  return undefined;
}
