/**
 * The demo agent's line language. Pure: no file system, no Node built-ins.
 *
 * One command a line; keywords are lowercase and must start the line (leading spaces allowed):
 *   create <path>: <text>       write a new file (or overwrite one) with exactly <text>
 *   append <path>: <text>       add <text> to the end of a file (created when missing)
 *   replace <path>: <old> => <new>   replace every occurrence of <old>; fails when there is none
 *   delete <path>               remove a file or folder; fails when it does not exist
 *   rename <from> -> <to>       move a file or folder; fails when <to> exists
 *   mkdir <path>                create a folder and its parents
 *   sleep <seconds>             wait, e.g. `sleep 2` or `sleep 0.5`
 *   exit <code>                 stop at once with exit code 0-255
 *   print <text>                write <text> to standard output
 *   resolve <path>: keep ours|theirs|both   replace each git conflict block of the file by its first
 *                               side (ours), its second (theirs) or both, ours first; fails when the
 *                               file has no conflict block (conflictMarkers.ts)
 *   ratelimit[: <reset>]        the first time in this folder: print a usage-limit message ending in
 *                               <reset> (e.g. `resets in 2s`), exit 1 and keep the rest of the task;
 *                               a later run there without commands (a follow-up) runs that rest
 *                               (rateLimit.ts)
 *   commit: <message>           `git add -A` and `git commit` in the folder; fails when git does
 *   probe write|read|fetch|connect <target>   a sandbox check (probes.ts): reports allowed or denied
 * Paths are relative to the agent's folder, contain no whitespace, and may not leave it (no absolute
 * paths, no `..` escape, nothing inside `.git`). In <text>, `\n` is a newline, `\t` a tab, `\\` a
 * backslash. Lines are trimmed and blank ones skipped; any other line is prose and becomes an
 * `ignored` step, so an ordinary prompt still runs. A line that starts with a keyword but breaks its
 * grammar is prose too, except a refused path, an exit code out of range or a replace with nothing
 * to find, which are `error` steps (the run fails there). Lines inside a code fence (a line of three
 * or more backticks, up to a line of at least as many) are quoted text, never commands: a follow-up
 * that quotes a file (Ask Agent to Resolve Conflicts) runs none of its lines.
 */
import type { KeepSide } from './conflictMarkers';

/** What a `probe` line tries (probes.ts): a sandbox check, outside the folder, run only when enabled. */
export type ProbeKind = 'write' | 'read' | 'fetch' | 'connect';

interface StepBase {
  /** 1-based line of the prompt the step came from. */
  readonly line: number;
}

export type DemoStep = StepBase &
  (
    | { readonly kind: 'create'; readonly path: string; readonly text: string }
    | { readonly kind: 'append'; readonly path: string; readonly text: string }
    | { readonly kind: 'replace'; readonly path: string; readonly oldText: string; readonly newText: string }
    | { readonly kind: 'delete'; readonly path: string }
    | { readonly kind: 'rename'; readonly from: string; readonly to: string }
    | { readonly kind: 'mkdir'; readonly path: string }
    | { readonly kind: 'sleep'; readonly seconds: number }
    | { readonly kind: 'exit'; readonly code: number }
    | { readonly kind: 'print'; readonly text: string }
    | { readonly kind: 'resolve'; readonly path: string; readonly keep: KeepSide }
    | { readonly kind: 'ratelimit'; readonly resets: string }
    | { readonly kind: 'probe'; readonly probe: ProbeKind; readonly target: string }
    | { readonly kind: 'commit'; readonly message: string }
    | { readonly kind: 'ignored'; readonly text: string; readonly note: string }
    | { readonly kind: 'error'; readonly text: string; readonly message: string }
  );

export type DemoStepKind = DemoStep['kind'];

/** True for steps that do something (everything but prose). */
export function isCommand(step: DemoStep): boolean {
  return step.kind !== 'ignored';
}

export function parsePrompt(prompt: string): DemoStep[] {
  const steps: DemoStep[] = [];
  let fence: string | undefined;
  prompt.split(/\r?\n/).forEach((raw, index) => {
    const text = raw.trim();
    const ticks = /^`{3,}/.exec(text)?.[0];
    if (fence !== undefined) {
      if (ticks !== undefined && ticks.length >= fence.length && text === ticks) {
        fence = undefined;
      }
      steps.push({ kind: 'ignored', text, note: 'quoted text (inside a code fence)', line: index + 1 });
    } else if (ticks !== undefined) {
      fence = ticks;
      steps.push({ kind: 'ignored', text, note: 'quoted text (inside a code fence)', line: index + 1 });
    } else if (text !== '') {
      steps.push(parseLine(text, index + 1));
    }
  });
  return steps;
}

type Parser = (match: RegExpExecArray, line: number, text: string) => DemoStep;

// A path is a run of non-space characters; in `create`/`append`/`replace` it also stops at the colon.
const grammar: ReadonlyArray<readonly [RegExp, Parser]> = [
  [
    /^create\s+([^\s:]+)\s*(?::\s?(.*))?$/,
    (m, line, text) =>
      withPath(m[1], line, text, (path) => ({ kind: 'create', path, text: unescapeText(m[2] ?? ''), line })),
  ],
  [
    /^append\s+([^\s:]+)\s*:\s?(.*)$/,
    (m, line, text) => withPath(m[1], line, text, (path) => ({ kind: 'append', path, text: unescapeText(m[2]), line })),
  ],
  [/^replace\s+([^\s:]+)\s*:\s?(.*?) => ?(.*)$/, (m, line, text) => parseReplace(m, line, text)],
  [/^delete\s+(\S+)$/, (m, line, text) => withPath(m[1], line, text, (path) => ({ kind: 'delete', path, line }))],
  [/^rename\s+(\S+)\s+->\s+(\S+)$/, (m, line, text) => parseRename(m, line, text)],
  [/^mkdir\s+(\S+)$/, (m, line, text) => withPath(m[1], line, text, (path) => ({ kind: 'mkdir', path, line }))],
  [/^sleep\s+(\d+(?:\.\d+)?|\.\d+)$/, (m, line) => ({ kind: 'sleep', seconds: Number(m[1]), line })],
  [/^exit\s+(-?\d+)$/, (m, line, text) => parseExit(m[1], line, text)],
  [/^print(?:\s(.*))?$/, (m, line) => ({ kind: 'print', text: unescapeText(m[1] ?? ''), line })],
  [/^ratelimit(?:\s*:\s*(.*))?$/, (m, line) => ({ kind: 'ratelimit', resets: (m[1] ?? '').trim(), line })],
  [
    /^probe\s+(write|read|fetch|connect)\s+(\S+)$/,
    (m, line) => ({ kind: 'probe', probe: m[1] as ProbeKind, target: m[2], line }),
  ],
  [/^commit\s*:\s?(.+)$/, (m, line) => ({ kind: 'commit', message: m[1], line })],
  [
    /^resolve\s+([^\s:]+)\s*:\s*keep\s+(ours|theirs|both)$/,
    (m, line, text) => withPath(m[1], line, text, (path) => ({ kind: 'resolve', path, keep: m[2] as KeepSide, line })),
  ],
];

function parseLine(text: string, line: number): DemoStep {
  for (const [pattern, parse] of grammar) {
    const match = pattern.exec(text);
    if (match) {
      return parse(match, line, text);
    }
  }
  return { kind: 'ignored', text, note: 'not a command (prose is ignored)', line };
}

function parseReplace(m: RegExpExecArray, line: number, text: string): DemoStep {
  const oldText = unescapeText(m[2]);
  if (oldText === '') {
    return { kind: 'error', text, message: `line ${line}: replace needs the text to find before "=>"`, line };
  }
  return withPath(m[1], line, text, (path) => ({ kind: 'replace', path, oldText, newText: unescapeText(m[3]), line }));
}

function parseRename(m: RegExpExecArray, line: number, text: string): DemoStep {
  return withPath(m[1], line, text, (from) => withPath(m[2], line, text, (to) => ({ kind: 'rename', from, to, line })));
}

function parseExit(value: string, line: number, text: string): DemoStep {
  const code = Number(value);
  if (code < 0 || code > 255) {
    return { kind: 'error', text, message: `line ${line}: exit code must be between 0 and 255, not ${value}`, line };
  }
  return { kind: 'exit', code, line };
}

function withPath(raw: string, line: number, text: string, make: (path: string) => DemoStep): DemoStep {
  const checked = checkRelativePath(raw);
  if (!checked.ok) {
    return { kind: 'error', text, message: `line ${line}: ${checked.message}`, line };
  }
  return make(checked.path);
}

export type PathCheck = { readonly ok: true; readonly path: string } | { readonly ok: false; readonly message: string };

/**
 * Normalises a path relative to the agent's folder to forward slashes, refusing anything that could
 * touch a file outside it: absolute paths (`/x`, `\x`, `C:x`, `~`), `..` that climbs out, the folder
 * itself, and `.git` (which in a worktree links to the repository's own metadata).
 */
export function checkRelativePath(raw: string): PathCheck {
  if (/^[/\\]/.test(raw) || /^[A-Za-z]:/.test(raw) || raw.startsWith('~')) {
    return { ok: false, message: `path "${raw}" must be relative to the agent's folder, not absolute` };
  }
  const parts: string[] = [];
  for (const segment of raw.split(/[/\\]+/)) {
    if (segment === '' || segment === '.') {
      continue;
    }
    if (segment === '..') {
      if (parts.length === 0) {
        return { ok: false, message: `path "${raw}" leaves the agent's folder` };
      }
      parts.pop();
    } else {
      parts.push(segment);
    }
  }
  if (parts.length === 0) {
    return { ok: false, message: `path "${raw}" names the agent's folder itself` };
  }
  if (parts[0].toLowerCase() === '.git') {
    return { ok: false, message: `path "${raw}" is inside .git, which the demo agent never touches` };
  }
  return { ok: true, path: parts.join('/') };
}

/** `\n` → newline, `\t` → tab, `\\` → backslash; any other backslash stays as written. */
export function unescapeText(text: string): string {
  return text.replace(/\\([nt\\])/g, (_, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : '\\'));
}

/** One short line describing a step, used for the agent's progress output. */
export function describeStep(step: DemoStep): string {
  switch (step.kind) {
    case 'create':
    case 'append':
    case 'replace':
    case 'delete':
    case 'mkdir':
      return `${step.kind} ${step.path}`;
    case 'resolve':
      return `resolve ${step.path} (keep ${step.keep})`;
    case 'rename':
      return `rename ${step.from} -> ${step.to}`;
    case 'sleep':
      return `sleep ${step.seconds}`;
    case 'exit':
      return `exit ${step.code}`;
    case 'print':
      return 'print';
    case 'ratelimit':
      return 'ratelimit';
    case 'probe':
      return `probe ${step.probe} ${step.target}`;
    case 'commit':
      return `commit: ${truncate(step.message, 60)}`;
    case 'ignored':
      return `ignored line ${step.line}: ${truncate(step.text, 60)}`;
    case 'error':
      return `error ${step.message}`;
  }
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
