// The extension's own output format, `parallel-agents-json` (core/clis/ownEvents.ts): what each
// line tells, read through the same parser as the CLIs' JSON lines.
import * as assert from 'node:assert/strict';
import { AgentEventParser } from '../../src/core/clis/agentEvents';
import { ownEventLine, ownOutput, readOwnEvent } from '../../src/core/clis/ownEvents';
import { profileOutputs } from '../../src/core/clis/profiles';

const parse = (text: string) => {
  const parser = new AgentEventParser(ownOutput);
  parser.push(text);
  parser.end();
  return parser.state;
};

describe('parallel-agents-json output', () => {
  it('is a profile output a user can set', () => {
    assert.ok(profileOutputs.includes(ownOutput));
  });

  it('reads the step, then the final message and usage, ignoring plain lines around them', () => {
    const state = parse(
      [
        '[demo] create a.txt',
        ownEventLine('start').trim(),
        ownEventLine('step', { step: 'Edit   src/a.ts\n(2 hunks)' }).trim(),
        'a line for people',
        ownEventLine('result', {
          result: 'Done: a.txt\n\n- create a.txt',
          turns: 2,
          inputTokens: 100,
          outputTokens: 20,
          costUsd: 0.5,
        }).trim(),
      ].join('\n'),
    );
    assert.deepEqual(state, {
      progress: { step: 'Edit src/a.ts (2 hunks)', turns: 2, inputTokens: 100, outputTokens: 20, costUsd: 0.5 },
      result: 'Done: a.txt\n\n- create a.txt',
      denials: [],
      reportedError: false,
    });
  });

  it('takes isError as the agent reporting a failure, and a start line as a new run', () => {
    assert.equal(parse(ownEventLine('result', { result: 'broke', isError: true })).reportedError, true);
    const log = [
      ownEventLine('start'),
      ownEventLine('step', { step: 'first run' }),
      ownEventLine('result', { result: 'first', turns: 3 }),
      ownEventLine('start'),
      ownEventLine('result', { result: 'second' }),
    ].join('');
    assert.deepEqual(parse(log), { progress: {}, result: 'second', denials: [], reportedError: false });
  });

  it('drops fields of the wrong type and caps a long step', () => {
    assert.deepEqual(
      readOwnEvent({ type: 'result', result: '  ', turns: -1, inputTokens: '5', costUsd: Infinity, isError: 'yes' }),
      {},
    );
    assert.deepEqual(readOwnEvent({ type: 'other', result: 'x' }), {});
    assert.deepEqual(readOwnEvent({ type: 'step', step: 7 }), {});
    const step = readOwnEvent({ type: 'step', step: 'x'.repeat(500) }).step ?? '';
    assert.equal(step.length, 120);
    assert.ok(step.endsWith('…'));
  });
});
