// The JSON lines of the real CLIs, recorded from test/agents/realClis.test.ts runs (PA_CAPTURE_DIR;
// opencode-followup.jsonl is the whole log of its follow-up test: both runs).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentEventParser, lineLimit, resultLimit } from '../../src/core/clis/agentEvents';
import type { ProfileOutput } from '../../src/core/clis/profiles';

const fixtures = path.resolve(__dirname, '../../../test/fixtures/agentOutput');
const read = (name: string) => fs.readFileSync(path.join(fixtures, name), 'utf8');

/** The worktree the recorded run worked in, so its absolute paths can be made relative. */
function cwdOf(log: string): string {
  const match = /(\/tmp\/pa-manager-[^/]+\/repo\.worktrees\/[a-z]+-test)/.exec(log);
  return match ? match[1] : '';
}

function parse(format: ProfileOutput, log: string, chunk = log.length) {
  const parser = new AgentEventParser(format, cwdOf(log));
  for (let i = 0; i < log.length; i += chunk) {
    parser.push(log.slice(i, i + chunk));
  }
  parser.end();
  return parser.state;
}

describe('agent CLI events (real recorded output)', () => {
  it('claude stream-json: the Write step, turns, tokens, cost and the final answer', () => {
    const state = parse('claude-stream-json', read('claude-edit.jsonl'));
    assert.deepEqual(state.progress, {
      step: 'Write notes/hello.txt',
      turns: 2,
      inputTokens: 20,
      outputTokens: 10,
      costUsd: 0.00028000000000000003,
    });
    assert.equal(state.result, 'DONE');
    assert.deepEqual(state.denials, []);
    assert.equal(state.reportedError, false);
  });

  it('claude without a permission mode: the denied Write is reported', () => {
    const state = parse('claude-stream-json', read('claude-permission-denied.jsonl'));
    assert.deepEqual(state.denials, ['Write notes/hello.txt']);
    assert.equal(state.result, 'DONE');
    assert.equal(state.reportedError, false);
  });

  it('codex exec --json: the added file, a turn with its usage, the agent message', () => {
    const state = parse('codex-json', read('codex-edit.jsonl'));
    assert.deepEqual(state.progress, { step: 'Add notes/hello.txt', turns: 1, inputTokens: 20, outputTokens: 10 });
    assert.equal(state.result, 'DONE');
  });

  it('gemini stream-json: the write_file step, tokens, the streamed answer; warnings before the JSON are skipped', () => {
    const state = parse('gemini-stream-json', read('gemini-edit.jsonl'));
    assert.deepEqual(state.progress, { step: 'write_file notes/hello.txt', inputTokens: 30, outputTokens: 15 });
    assert.equal(state.result, 'DONE');
  });

  it('copilot --output-format json: the create step and the turns (it prints no tokens), the last answer', () => {
    const state = parse('copilot-json', read('copilot-edit.jsonl'));
    assert.deepEqual(state.progress, { step: 'create hello.txt', turns: 2 });
    assert.equal(state.result, 'DONE');
    assert.deepEqual(state.denials, []);
    assert.equal(state.reportedError, false);
  });

  it('copilot without --allow-all-tools: the create ended "denied" is reported with its file', () => {
    const state = parse('copilot-json', read('copilot-denied.jsonl'));
    assert.deepEqual(state.denials, ['create hello.txt']);
    assert.deepEqual(state.progress, { step: 'create hello.txt', turns: 2 });
    assert.equal(state.result, 'DONE');
    assert.equal(state.reportedError, false);
  });

  it('copilot rejected by the provider (401): the session error is the result, reported as a failure', () => {
    const state = parse('copilot-json', read('copilot-error.jsonl'));
    assert.match(
      state.result ?? '',
      /^Authentication failed with provider at http:\/\/127\.0\.0\.1:\d+\/v1 \(HTTP 401\)/,
    );
    assert.equal(state.reportedError, true);
    assert.deepEqual(state.progress, { turns: 1 });
    assert.deepEqual(state.denials, []);
  });

  it('opencode run --format json: the write step, steps as turns, summed tokens and cost, the answer', () => {
    const state = parse('opencode-json', read('opencode-edit.jsonl'));
    assert.deepEqual(state.progress, {
      step: 'write notes/hello.txt',
      turns: 2,
      inputTokens: 20,
      outputTokens: 10,
      costUsd: 0,
    });
    assert.equal(state.result, 'DONE');
    assert.deepEqual(state.denials, []);
    assert.equal(state.reportedError, false);
  });

  it('opencode rejected by the provider (401): its error message, reported as a failure', () => {
    const state = parse('opencode-json', read('opencode-error.jsonl'));
    assert.equal(state.result, 'Incorrect API key provided.');
    assert.equal(state.reportedError, true);
    assert.deepEqual(state.progress, {});
  });

  it('opencode: a real log of a run and its follow-up (--continue, the same session) gives the follow-up only', () => {
    const log = read('opencode-followup.jsonl');
    assert.match(log, /──── follow-up: /);
    const state = parse('opencode-json', log);
    assert.deepEqual(state.progress, { turns: 1, inputTokens: 10, outputTokens: 5, costUsd: 0 });
    assert.equal(state.result, 'DONE');
  });

  it('gives the same state whatever the chunking (lines split across chunks)', () => {
    for (const [format, file] of [
      ['claude-stream-json', 'claude-permission-denied.jsonl'],
      ['codex-json', 'codex-edit.jsonl'],
      ['gemini-stream-json', 'gemini-edit.jsonl'],
      ['copilot-json', 'copilot-denied.jsonl'],
      ['opencode-json', 'opencode-followup.jsonl'],
    ] as const) {
      const log = read(file);
      const whole = parse(format, log);
      for (const size of [1, 7, 100]) {
        assert.deepEqual(parse(format, log, size), whole, `${file} in chunks of ${size}`);
      }
    }
  });

  it('push reports a change only when the state changed', () => {
    const parser = new AgentEventParser('gemini-stream-json');
    assert.equal(parser.push('not json\n{"type":"init"}\n{broken\n'), false);
    assert.equal(
      parser.push('{"type":"tool_use","tool_name":"read_file","parameters":{"file_path":"a.ts"}}'),
      false,
      'no newline yet',
    );
    assert.equal(parser.push('\n'), true);
    assert.equal(parser.state.progress.step, 'read_file a.ts');
  });

  it('drops a line longer than the limit without keeping it, then reads the next line', () => {
    const parser = new AgentEventParser('claude-stream-json');
    const huge = `{"type":"assistant","message":{"content":[{"type":"text","text":"${'x'.repeat(lineLimit)}"}]}}`;
    for (let i = 0; i < huge.length; i += 65536) {
      parser.push(huge.slice(i, i + 65536));
    }
    assert.ok((parser as unknown as { buffer: string }).buffer.length <= lineLimit);
    parser.push(
      '\n{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"npm test"}}]}}\n',
    );
    assert.equal(parser.state.progress.step, 'Bash npm test');
  });

  it('caps the final answer', () => {
    const parser = new AgentEventParser('claude-stream-json');
    parser.push(`${JSON.stringify({ type: 'result', result: 'y'.repeat(resultLimit * 3), is_error: true })}\n`);
    assert.equal(parser.state.result?.length, resultLimit);
    assert.equal(parser.state.reportedError, true);
  });

  it('a log with two runs (a follow-up after a denial) gives the state of the last run only', () => {
    for (const [format, first, second] of [
      ['claude-stream-json', 'claude-permission-denied.jsonl', 'claude-edit.jsonl'],
      ['codex-json', 'codex-edit.jsonl', 'codex-edit.jsonl'],
      ['gemini-stream-json', 'gemini-edit.jsonl', 'gemini-edit.jsonl'],
      ['copilot-json', 'copilot-denied.jsonl', 'copilot-edit.jsonl'],
      ['copilot-json', 'copilot-error.jsonl', 'copilot-edit.jsonl'],
      ['opencode-json', 'opencode-error.jsonl', 'opencode-edit.jsonl'],
      ['opencode-json', 'opencode-edit.jsonl', 'opencode-edit.jsonl'],
    ] as const) {
      const both = `${read(first)}\n──── follow-up: go on\n${read(second)}`;
      const parser = new AgentEventParser(format, cwdOf(read(second)));
      parser.push(both);
      parser.end();
      assert.deepEqual(parser.state, parse(format, read(second)), format);
    }
    assert.deepEqual(
      parse('claude-stream-json', `${read('claude-permission-denied.jsonl')}\n${read('claude-edit.jsonl')}`).denials,
      [],
    );
  });
});
