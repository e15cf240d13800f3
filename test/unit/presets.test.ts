// The argv every built-in preset produces. Flags and their sources: src/core/clis/profiles.ts and the
// report of the real-CLI tests (test/agents/realClis.test.ts runs claude, codex, gemini, copilot and
// opencode).
import * as assert from 'node:assert/strict';
import { builtinProfiles, expandArgs, findProfile } from '../../src/core/clis/profiles';

const prompt = 'Fix the "login" bug; then run `npm test` $(whoami)';

function argv(name: string, follow = false): { command: string; args: string[] } {
  const profile = findProfile(builtinProfiles, name);
  return {
    command: profile.command,
    args: expandArgs(follow ? (profile.continueArgs ?? profile.args) : profile.args, prompt),
  };
}

describe('built-in presets', () => {
  it('has every documented preset, each a headless run except claude-terminal', () => {
    assert.deepEqual(
      builtinProfiles.map((p) => p.name),
      ['demo', 'claude', 'claude-terminal', 'codex', 'gemini', 'aider', 'opencode', 'cursor', 'copilot'],
    );
    assert.deepEqual(
      builtinProfiles.filter((p) => p.mode === 'terminal').map((p) => p.name),
      ['claude-terminal'],
    );
  });

  it('claude: headless with a permission mode and stream-json output, which needs --verbose', () => {
    const { command, args } = argv('claude');
    assert.equal(command, 'claude');
    assert.deepEqual(args, [
      '-p',
      '--permission-mode',
      'acceptEdits',
      '--output-format',
      'stream-json',
      '--verbose',
      '--',
      prompt,
    ]);
    assert.equal(args[args.indexOf('--permission-mode') + 1], 'acceptEdits');
    assert.equal(args[args.indexOf('--output-format') + 1], 'stream-json');
    assert.ok(args.includes('--verbose'));
    assert.deepEqual(argv('claude', true).args, [
      '--continue',
      '-p',
      '--permission-mode',
      'acceptEdits',
      '--output-format',
      'stream-json',
      '--verbose',
      '--',
      prompt,
    ]);
  });

  it('claude-terminal: the interactive CLI with the prompt after --', () => {
    assert.deepEqual(argv('claude-terminal'), { command: 'claude', args: ['--', prompt] });
    assert.deepEqual(argv('claude-terminal', true).args, ['--continue', '--', prompt]);
  });

  it('codex: exec in the workspace-write sandbox; a follow-up resumes the last session', () => {
    assert.deepEqual(argv('codex'), {
      command: 'codex',
      args: ['exec', '--json', '-s', 'workspace-write', '--', prompt],
    });
    assert.deepEqual(argv('codex', true).args, [
      'exec',
      '--json',
      '-s',
      'workspace-write',
      'resume',
      '--last',
      '--',
      prompt,
    ]);
  });

  it('gemini: auto-approved edits, a trusted worktree, stream-json output', () => {
    assert.deepEqual(argv('gemini'), {
      command: 'gemini',
      args: [`--prompt=${prompt}`, '--approval-mode', 'auto_edit', '--skip-trust', '--output-format', 'stream-json'],
    });
    assert.deepEqual(argv('gemini', true).args, [
      '--resume',
      'latest',
      `--prompt=${prompt}`,
      '--approval-mode',
      'auto_edit',
      '--skip-trust',
      '--output-format',
      'stream-json',
    ]);
  });

  it('aider: one message, yes to every confirmation', () => {
    assert.deepEqual(argv('aider'), { command: 'aider', args: ['--yes-always', `--message=${prompt}`] });
    assert.deepEqual(argv('aider', true).args, ['--yes-always', `--message=${prompt}`]);
  });

  it('opencode: run with JSON lines output, the task on standard input (a message argument gets re-quoted)', () => {
    assert.deepEqual(argv('opencode'), { command: 'opencode', args: ['run', '--format', 'json'] });
    assert.deepEqual(argv('opencode', true).args, ['run', '--continue', '--format', 'json']);
    const opencode = findProfile(builtinProfiles, 'opencode');
    assert.equal(opencode.promptVia, 'stdin');
    assert.equal(opencode.output, 'opencode-json');
  });

  it('cursor: print mode in a trusted workspace, without --force', () => {
    assert.deepEqual(argv('cursor'), { command: 'cursor-agent', args: ['-p', '--trust', '--', prompt] });
    assert.deepEqual(argv('cursor', true).args, ['-p', '--trust', '--continue', '--', prompt]);
    assert.ok(!argv('cursor').args.includes('--force'));
  });

  it('copilot: prompt mode, which requires --allow-all-tools, and no questions back', () => {
    assert.deepEqual(argv('copilot'), {
      command: 'copilot',
      args: [`--prompt=${prompt}`, '--allow-all-tools', '--no-ask-user', '--output-format', 'json'],
    });
    assert.deepEqual(argv('copilot', true).args, [
      '--continue',
      `--prompt=${prompt}`,
      '--allow-all-tools',
      '--no-ask-user',
      '--output-format',
      'json',
    ]);
    assert.equal(findProfile(builtinProfiles, 'copilot').output, 'copilot-json');
  });

  it('no preset skips permissions wholesale', () => {
    const dangerous = [
      '--dangerously-skip-permissions',
      'bypassPermissions',
      '--yolo',
      '--force',
      '--dangerously-bypass-approvals-and-sandbox',
      '--auto',
      '--allow-all',
    ];
    for (const profile of builtinProfiles) {
      for (const args of [profile.args, profile.continueArgs ?? []]) {
        assert.deepEqual(
          args.filter((a) => dangerous.includes(a)),
          [],
          profile.name,
        );
      }
    }
  });
});
