/**
 * Review comments, pure: the one prompt a review becomes, the lines a comment quotes, and whether a
 * run has addressed a comment (changed the lines it quotes).
 */
import type { ReviewComment } from '../agent';
import { splitLines } from './textLines';

/** A comment as it goes into the prompt: its lines as they are when the review is sent. */
export interface CommentToSend {
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  /** The lines now, without line breaks; empty when the range is past the file's end. */
  readonly lines: readonly string[];
  readonly body: string;
  /** A general comment (ReviewComment.general): sent without a file and lines. */
  readonly general?: true;
}

/** How far (in lines) the quoted lines may have moved and still count as the same, unchanged lines. */
export const nearLines = 20;

/** A file's text as an editor numbers its lines (see splitLines), without their line breaks. */
export function linesOf(text: string): string[] {
  // Stryker disable next-line Regex: equivalent, splitLines leaves each line one break, only at its end
  return splitLines(text).map((line) => line.replace(/\r\n$|[\r\n]$/, ''));
}

/** Lines `startLine`..`endLine` (1-based, inclusive) of `lines`; what is past the end is left out. */
export function quoteLines(lines: readonly string[], startLine: number, endLine: number): string[] {
  return lines.slice(Math.max(0, startLine - 1), Math.max(0, endLine));
}

export function rangeText(startLine: number, endLine: number): string {
  return startLine === endLine ? `line ${startLine}` : `lines ${startLine}-${endLine}`;
}

/**
 * The follow-up that sends a review: one numbered entry per comment, in file then line order, with
 * the file, its line range, the lines there now (each behind `> `) and the comment, indented.
 */
export function reviewPrompt(comments: readonly CommentToSend[]): string {
  const sorted = [...comments].sort((a, b) => a.path.localeCompare(b.path) || a.startLine - b.startLine);
  const count = sorted.length === 1 ? '1 comment' : `${sorted.length} comments`;
  const entries = sorted.map((c, i) => {
    if (c.general) {
      return [`${i + 1}. General comment:`, ...indented(c.body)].join('\n');
    }
    const quoted =
      c.lines.length > 0 ? c.lines.map((l) => `   > ${l}`) : ['   (these lines are no longer in the file)'];
    return [`${i + 1}. ${c.path}, ${rangeText(c.startLine, c.endLine)}:`, ...quoted, ...indented(c.body)].join('\n');
  });
  return [
    `Review of your changes (${count}). For each file and line range below, the lines as they are now, then what to do there:`,
    ...entries,
  ].join('\n\n');
}

function indented(body: string): string[] {
  return body
    .trim()
    .split(/\r?\n/)
    .map((l) => `   ${l}`);
}

/**
 * Whether `quoted` is gone from around line `startLine` of `now`: the same lines in the same order,
 * starting within `near` lines of where they were, count as unchanged. A file that is gone
 * (`now` undefined) has changed them.
 */
export function linesChanged(
  quoted: readonly string[],
  now: readonly string[] | undefined,
  startLine: number,
  near = nearLines,
): boolean {
  if (now === undefined) {
    return true;
  }
  if (quoted.length === 0) {
    return false;
  }
  const start = startLine - 1;
  for (let offset = 0; offset <= near; offset++) {
    if (matchesAt(quoted, now, start - offset) || matchesAt(quoted, now, start + offset)) {
      return false;
    }
  }
  return true;
}

function matchesAt(quoted: readonly string[], now: readonly string[], at: number): boolean {
  // Stryker disable next-line all: equivalent, past either end now[i] is undefined, which no quoted line equals
  if (at < 0 || at + quoted.length > now.length) {
    return false;
  }
  return quoted.every((line, i) => now[at + i] === line);
}

/** Comments not sent yet. */
export function pendingComments(comments: readonly ReviewComment[] | undefined): ReviewComment[] {
  return (comments ?? []).filter((c) => c.sentAt === undefined);
}

/** Sent comments on lines whose addressing is still open after a run that ended at `endedAt`. */
export function awaitingCheck(comments: readonly ReviewComment[] | undefined, endedAt: number): ReviewComment[] {
  // Stryker disable next-line ArrayDeclaration,ConditionalExpression: equivalent, endedAt >= undefined is false
  return (comments ?? []).filter((c) => c.sentAt !== undefined && !c.addressed && !c.general && endedAt >= c.sentAt);
}
