// Extension-host entry for the Review All Changes figure (passed as extensionTestsPath): for each
// round a demo agent changes 20 files in a new worktree; then, with no editor open, Review All
// Changes is run and timed until its multi-file diff tab is open and until VS Code has resolved
// both sides of every file (the documents reach the extension host). Writes the figures as JSON to
// env PA_BENCH_REVIEW_OUT. No mocha.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { AgentRecord } from '../../src/core/agent';
import type { ParallelAgentsApi } from '../../src/extension';
import { median, sleep, waitUntil } from '../stats';
import { benchFiles, prompt } from './files';

export interface ReviewAllRound {
  /** Review All Changes run → its multi-file diff tab is open. */
  readonly tabMs: number;
  /** Review All Changes run → both sides of every file resolved (or the time the last one came, see resolved). */
  readonly resolvedMs: number;
  /** Documents resolved out of 2 × files (the agent's side and the base side of each). */
  readonly resolved: number;
  /** When the last agent-side (file) and the last base-side (git show) document came. */
  readonly lastFileMs: number;
  readonly lastBaseMs: number;
}

export interface ReviewAllSample {
  readonly files: number;
  /** Round 1 is the window's first multi-file diff (the editor's code loads then); the rest are each a new agent's. */
  readonly rounds: readonly ReviewAllRound[];
  readonly tabMedianMs: number;
  readonly resolvedMedianMs: number;
  readonly vscodeVersion: string;
}

const extensionId = 'parallel-agents.parallel-agents';
const baseScheme = 'parallel-agents-base';
/** How long a round waits for every document before it reports how many came. */
const resolveTimeoutMs = 15_000;

async function finishedAgent(api: ParallelAgentsApi, title: string): Promise<AgentRecord> {
  const id = await api.dispatch({ prompt: prompt(), profile: 'demo', isolation: 'worktree', title });
  const done = (): AgentRecord | undefined =>
    api.agents().find((r) => r.id === id && r.status === 'succeeded' && r.changedFiles.length === benchFiles);
  await waitUntil(`agent "${title}" to change ${benchFiles} files`, () => done() !== undefined, 60_000);
  return done()!;
}

/** Whether `doc` is one side of one of the agent's changed files. */
function sideOf(record: AgentRecord, doc: vscode.TextDocument): boolean {
  if (doc.uri.scheme === baseScheme) {
    return (JSON.parse(doc.uri.query) as { agent?: string }).agent === record.id;
  }
  return doc.uri.scheme === 'file' && record.changedFiles.some((f) => join(record.cwd, f.path) === doc.uri.fsPath);
}

async function closeAllEditors(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  await waitUntil('every editor to close', () => vscode.window.tabGroups.all.every((g) => g.tabs.length === 0));
}

async function round(record: AgentRecord): Promise<ReviewAllRound> {
  await closeAllEditors();
  const label = `Agent: ${record.title}`;
  const seen = new Set<string>(vscode.workspace.textDocuments.filter((d) => sideOf(record, d)).map((d) => `${d.uri}`));
  const started = performance.now();
  let tabMs: number | undefined;
  const last = { file: 0, base: 0 };
  const disposables = [
    vscode.window.tabGroups.onDidChangeTabs(() => {
      const open = vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.label === label));
      if (open && tabMs === undefined) {
        tabMs = performance.now() - started;
      }
    }),
    vscode.workspace.onDidOpenTextDocument((doc) => {
      if (sideOf(record, doc) && !seen.has(`${doc.uri}`)) {
        seen.add(`${doc.uri}`);
        last[doc.uri.scheme === baseScheme ? 'base' : 'file'] = performance.now() - started;
      }
    }),
  ];
  try {
    await vscode.commands.executeCommand('parallelAgents.reviewAll', record.id);
    const all = 2 * benchFiles;
    await waitUntil(
      'every document of the diff',
      () => tabMs !== undefined && seen.size >= all,
      resolveTimeoutMs,
    ).catch(() => undefined);
    if (tabMs === undefined) {
      throw new Error(`the tab "${label}" did not open`);
    }
    const resolvedMs = Math.max(tabMs, last.file, last.base);
    return { tabMs, resolvedMs, resolved: seen.size, lastFileMs: last.file, lastBaseMs: last.base };
  } finally {
    vscode.Disposable.from(...disposables).dispose();
  }
}

export async function run(): Promise<void> {
  const out = process.env.PA_BENCH_REVIEW_OUT;
  const rounds = Number(process.env.PA_BENCH_REVIEW_ROUNDS ?? '5');
  if (!out) {
    throw new Error('PA_BENCH_REVIEW_OUT is not set');
  }
  const extension = vscode.extensions.getExtension<ParallelAgentsApi>(extensionId);
  if (!extension) {
    throw new Error(`${extensionId} is not loaded`);
  }
  const api = await extension.activate();
  const results: ReviewAllRound[] = [];
  for (let i = 0; i < rounds; i++) {
    const record = await finishedAgent(api, `Twenty files ${i + 1}`);
    // The change tracker's refresh after the run has settled: what is timed is the review alone.
    await sleep(500);
    results.push(await round(record));
  }
  const sample: ReviewAllSample = {
    files: benchFiles,
    rounds: results,
    tabMedianMs: median(results.map((r) => r.tabMs)),
    resolvedMedianMs: median(results.map((r) => r.resolvedMs)),
    vscodeVersion: vscode.version,
  };
  writeFileSync(out, JSON.stringify(sample, null, 2));
}
