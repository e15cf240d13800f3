/**
 * The deterministic demo agent: `node dist/demoAgent.js <prompt>` (or under Electron with
 * ELECTRON_RUN_AS_NODE=1). It runs the commands of its prompt (see language.ts) in its current folder
 * with real file edits, one progress line per step (`[demo] create src/a.txt`), then a summary line.
 *
 * Exit code: 0; the code of an `exit N` step; 1 when a step fails (error on stderr, later steps not
 * run); 2 when it is not given exactly one argument.
 * A prompt without any command (plain prose, or empty) still changes something visible and
 * deterministic: the prompt is appended to AGENT_NOTES.md in the folder (created when missing).
 * A planning request (see core/planningRequest.ts planningPrompt) changes no file: it is answered with a plan
 * (see planner.ts), exit 0. A review request (Review with Agent) is answered with findings (reviewer.ts).
 * With DEMO_AGENT_OUTPUT=parallel-agents-json in its environment (the demo profile sets it) it also
 * prints that format's JSON lines (core/clis/ownEvents.ts): a start line, then a result line whose
 * final message is its summary and the steps it ran (or its plan), so the extension shows them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type OwnEvent, ownEventLine, ownOutput } from '../core/clis';
import { delay } from '../util/async';
import { type KeepSide, resolveConflictBlocks } from './conflictMarkers';
import { DemoStep, describeStep, isCommand, parsePrompt } from './language';
import { hitLimit, takeSession } from './rateLimit';
import { commitAll, probe, probesEnabled } from './probes';
import { answerRequest } from './reviewer';

const notesFile = 'AGENT_NOTES.md';

class StepFailure extends Error {}

interface RunState {
  readonly root: string;
  readonly changed: Set<string>;
  /** What was done, one line each, for the final message. */
  readonly done: string[];
  /** The task being run (the prompt, or the rest a stop on the limit kept). */
  readonly task: string;
  /** True when a stop on the limit in this folder was resumed: `ratelimit` steps pass. */
  readonly resumed: boolean;
  exitCode?: number;
}

/** Whether to report in the extension's own JSON lines too, besides the lines for people. */
const reportsJson = process.env.DEMO_AGENT_OUTPUT === ownOutput;

function report(type: 'start' | 'result', event?: OwnEvent): void {
  if (reportsJson) {
    process.stdout.write(ownEventLine(type, event));
  }
}

function main(args: readonly string[]): void {
  // A sandboxed run asks nothing of anyone; the flag only makes that visible (the sandboxed demo profile passes it).
  const autoApprove = args[0] === '--auto-approve';
  const argv = autoApprove ? args.slice(1) : args;
  if (autoApprove) {
    say('auto-approve: on (sandboxed)');
  }
  if (argv.length !== 1) {
    process.stderr.write(`[demo] usage: demoAgent <prompt> (exactly one argument, got ${argv.length})\n`);
    process.exitCode = 2;
    return;
  }
  const prompt = argv[0];
  report('start');
  if (answerRequest(prompt, (text) => process.stdout.write(text), report)) {
    return;
  }
  const root = fs.realpathSync(process.cwd());
  // A follow-up without commands continues a task stopped on the limit here (rateLimit.ts).
  const session = takeSession(root);
  const resume = session !== undefined && !parsePrompt(prompt).some(isCommand);
  const task = resume ? session : prompt;
  const state: RunState = { root, changed: new Set(), done: [], task, resumed: session !== undefined };
  if (resume) {
    say('resuming the task stopped on the usage limit', state);
  }
  const steps = parsePrompt(task);
  const ran = resume && !steps.some(isCommand) ? Promise.resolve(finish(0, state, 0)) : run(steps, prompt, state);
  ran.then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      const message = e instanceof Error ? e.message : String(e);
      process.stderr.write(`[demo] error: ${message}\n`);
      report('result', { result: `error: ${message}`, isError: true });
      process.exitCode = 1;
    },
  );
}

async function run(steps: readonly DemoStep[], prompt: string, state: RunState): Promise<number> {
  if (!steps.some(isCommand)) {
    for (const step of steps) {
      say(describeStep(step), state);
    }
    say(`notes ${notesFile} (the prompt has no command)`, state);
    writeNotes(prompt, state);
    return finish(steps.length, state, 0);
  }
  let done = 0;
  for (const step of steps) {
    say(describeStep(step), state);
    try {
      await execute(step, state);
    } catch (e) {
      const message = e instanceof StepFailure ? e.message : `line ${step.line}: ${String(e)}`;
      process.stderr.write(`[demo] error: ${message}\n`);
      state.done.push(`error: ${message}`);
      return finish(done, state, 1);
    }
    done++;
    if (state.exitCode !== undefined) {
      return finish(done, state, state.exitCode);
    }
  }
  return finish(done, state, 0);
}

function finish(stepsRun: number, state: RunState, code: number): number {
  const files = [...state.changed].sort();
  const paths = files.length ? `: ${files.join(', ')}` : '';
  const summary = `${stepsRun} step(s) run, ${files.length} path(s) changed${paths}; exit ${code}`;
  say(`summary: ${summary}`);
  report('result', {
    result: [summary, '', ...state.done.map((line) => `- ${line}`)].join('\n'),
    ...(code !== 0 ? { isError: true } : {}),
  });
  return code;
}

/** A line for people; with `state`, also one of the final message's list of what was done. */
function say(line: string, state?: RunState): void {
  process.stdout.write(`[demo] ${line}\n`);
  state?.done.push(line);
}

async function execute(step: DemoStep, state: RunState): Promise<void> {
  switch (step.kind) {
    case 'create':
      writeFile(state, step.path, step.text, false);
      return;
    case 'append':
      writeFile(state, step.path, step.text, true);
      return;
    case 'replace':
      replaceIn(state, step.path, step.oldText, step.newText, step.line);
      return;
    case 'delete':
      removePath(state, step.path, step.line);
      return;
    case 'rename':
      renamePath(state, step.from, step.to, step.line);
      return;
    case 'mkdir':
      fs.mkdirSync(resolveInside(state, step.path, true), { recursive: true });
      state.changed.add(step.path);
      return;
    case 'sleep':
      await delay(step.seconds * 1000);
      return;
    case 'exit':
      state.exitCode = step.code;
      return;
    case 'print':
      process.stdout.write(`${step.text}\n`);
      return;
    case 'ratelimit':
      if (hitLimit(state.root, step.resets, state.task.split(/\r?\n/).slice(step.line).join('\n'), state.resumed)) {
        state.done.push('stopped on the usage limit');
        state.exitCode = 1;
      }
      return;
    case 'resolve':
      resolveIn(state, step.path, step.keep, step.line);
      return;
    case 'probe':
      say(
        `probe ${step.probe} ${step.target}: ${probesEnabled() ? await probe(step.probe, step.target) : 'skipped'}`,
        state,
      );
      return;
    case 'commit':
      say(`committed ${commitAll(state.root, step.message)}`, state);
      return;
    case 'ignored':
      return;
    case 'error':
      throw new StepFailure(step.message);
  }
}

function writeFile(state: RunState, rel: string, text: string, append: boolean): void {
  const abs = resolveInside(state, rel, false);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  if (append) {
    fs.appendFileSync(abs, text);
  } else {
    fs.writeFileSync(abs, text);
  }
  state.changed.add(rel);
}

function replaceIn(state: RunState, rel: string, oldText: string, newText: string, line: number): void {
  const abs = resolveInside(state, rel, false);
  if (!fs.existsSync(abs)) {
    throw new StepFailure(`line ${line}: replace ${rel}: the file does not exist`);
  }
  const parts = fs.readFileSync(abs, 'utf8').split(oldText);
  if (parts.length === 1) {
    throw new StepFailure(`line ${line}: replace ${rel}: text not found: ${JSON.stringify(oldText)}`);
  }
  // split/join, not String.replace: `$&` and friends in the new text stay literal.
  fs.writeFileSync(abs, parts.join(newText));
  state.changed.add(rel);
}

function resolveIn(state: RunState, rel: string, keep: KeepSide, line: number): void {
  const abs = resolveInside(state, rel, false);
  if (!fs.existsSync(abs)) {
    throw new StepFailure(`line ${line}: resolve ${rel}: the file does not exist`);
  }
  const resolved = resolveConflictBlocks(fs.readFileSync(abs, 'utf8'), keep);
  if (!resolved.ok) {
    throw new StepFailure(`line ${line}: resolve ${rel}: ${resolved.message}`);
  }
  fs.writeFileSync(abs, resolved.text);
  state.changed.add(rel);
}

function removePath(state: RunState, rel: string, line: number): void {
  const abs = resolveInside(state, rel, true);
  if (!exists(abs)) {
    throw new StepFailure(`line ${line}: delete ${rel}: no such file or folder`);
  }
  fs.rmSync(abs, { recursive: true, force: true });
  state.changed.add(rel);
}

function renamePath(state: RunState, from: string, to: string, line: number): void {
  const source = resolveInside(state, from, true);
  const target = resolveInside(state, to, true);
  if (!exists(source)) {
    throw new StepFailure(`line ${line}: rename ${from}: no such file or folder`);
  }
  if (exists(target)) {
    throw new StepFailure(`line ${line}: rename to ${to}: it already exists`);
  }
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.renameSync(source, target);
  state.changed.add(from);
  state.changed.add(to);
}

/** True for files, folders and symbolic links (even dangling ones). */
function exists(abs: string): boolean {
  try {
    fs.lstatSync(abs);
    return true;
  } catch {
    return false;
  }
}

/**
 * The absolute path of `rel`, refusing one that a symbolic link would lead out of the folder. With
 * `linkItself`, a final symbolic link is the object acted on (deleted, moved), so only its parent counts.
 */
function resolveInside(state: RunState, rel: string, linkItself: boolean): string {
  const abs = path.join(state.root, rel);
  let probe = linkItself ? path.dirname(abs) : abs;
  while (!exists(probe)) {
    probe = path.dirname(probe);
  }
  let real: string;
  try {
    real = fs.realpathSync(probe);
  } catch {
    throw new StepFailure(`${rel}: a symbolic link on the way leads nowhere`);
  }
  if (real !== state.root && !real.startsWith(state.root + path.sep)) {
    throw new StepFailure(`${rel}: a symbolic link leads outside the agent's folder`);
  }
  return abs;
}

function writeNotes(prompt: string, state: RunState): void {
  const abs = resolveInside(state, notesFile, false);
  const header = exists(abs)
    ? '\n'
    : '# Agent notes\n\nThe demo agent found no command in its prompt, so it recorded the prompt here.\n\n';
  fs.appendFileSync(abs, `${header}## Prompt\n\n${prompt}\n`);
  state.changed.add(notesFile);
}

main(process.argv.slice(2));
