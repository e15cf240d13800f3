/**
 * The demo agent as a reviewer (Review with Agent): a prompt that starts with reviewRequestLine is a
 * review request. Its diff (the ```diff fence) is read, and each added line holding `TODO` gets a
 * finding asking to replace it: `FINDING <path>:<line>: replace <path>: TODO => DONE`, a command
 * the demo agent itself carries out once the review is sent back to the author. The request's other
 * commands (the person's focus, outside the fences) run as usual, so `print FINDING …` lines shape
 * the answer. No finding and no command: the answer is `NO FINDINGS`. No file system here.
 */
import type { OwnEvent } from '../core/clis';
import { findingKeyword, noFindingsLine, reviewRequestLine } from '../core/review';
import { isCommand, parsePrompt } from './language';
import { planReply } from './planner';

/** Whether `prompt` is a review request. */
export function isReviewRequest(prompt: string): boolean {
  return prompt.split(/\r?\n/, 1)[0] === reviewRequestLine;
}

/** The finding lines for the `TODO`s the diff of a review request adds, in order. */
export function todoFindings(prompt: string): string[] {
  const findings: string[] = [];
  let inDiff = false;
  let fence = '';
  let path: string | undefined;
  let line = 0;
  for (const raw of prompt.split(/\r?\n/)) {
    if (!inDiff) {
      const open = /^(`{3,})diff$/.exec(raw);
      if (open) {
        inDiff = true;
        fence = open[1];
      }
      continue;
    }
    if (raw === fence) {
      inDiff = false;
      continue;
    }
    const target = /^\+\+\+ (?:b\/(.*)|\/dev\/null)$/.exec(raw);
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(raw);
    if (target) {
      path = target[1];
    } else if (hunk) {
      line = Number(hunk[1]);
    } else if (raw.startsWith('+') || raw.startsWith(' ')) {
      if (raw.startsWith('+') && raw.includes('TODO') && path !== undefined) {
        findings.push(`${findingKeyword} ${path}:${line}: replace ${path}: TODO => DONE`);
      }
      line++;
    }
  }
  return findings;
}

/** The answer lines to print before the request's own commands run. */
export function reviewAnswer(prompt: string, hasCommands: boolean): string[] {
  const findings = todoFindings(prompt);
  return findings.length > 0 || hasCommands ? findings : [noFindingsLine];
}

/**
 * Writes a review request's answer (and, when the request has no command, its result event);
 * true when its commands are still to run.
 */
export function answerReview(
  prompt: string,
  write: (text: string) => void,
  report: (type: 'result', event: OwnEvent) => void,
): boolean {
  const hasCommands = parsePrompt(prompt).some(isCommand);
  const answer = reviewAnswer(prompt, hasCommands);
  write(answer.map((line) => `${line}\n`).join(''));
  if (!hasCommands) {
    report('result', { result: answer.join('\n') });
  }
  return hasCommands;
}

/**
 * A planning request (planner.ts) or a review request whose answer is all there is to do: answered,
 * and true. Anything else (a review request with commands too): false, its commands still to run.
 */
export function answerRequest(
  prompt: string,
  write: (text: string) => void,
  report: (type: 'result', event: OwnEvent) => void,
): boolean {
  const reply = planReply(prompt);
  if (reply !== undefined) {
    write(reply);
    report('result', { result: reply });
    return true;
  }
  return isReviewRequest(prompt) && !answerReview(prompt, write, report);
}
