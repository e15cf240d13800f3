import { AgentError } from '../errors';
import type { SandboxPolicy } from '../sandbox';
import { sandboxFields, withAutoApprove } from './autoApprove';
import { ownOutput } from './ownEvents';

export type ProfileMode = 'headless' | 'terminal';

/** The structured output a headless CLI prints, one JSON object a line (eventReaders.ts reads it). */
export type ProfileOutput =
  | 'claude-stream-json'
  | 'codex-json'
  | 'gemini-stream-json'
  | 'copilot-json'
  | 'opencode-json'
  | typeof ownOutput;
export const profileOutputs: readonly ProfileOutput[] = [
  'claude-stream-json',
  'codex-json',
  'gemini-stream-json',
  'copilot-json',
  'opencode-json',
  ownOutput,
];

/** How the task reaches the CLI: as `${prompt}` in its arguments, or written to its standard input. */
export type PromptVia = 'argument' | 'stdin';
const promptVias: readonly PromptVia[] = ['argument', 'stdin'];

export interface Profile {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly mode: ProfileMode;
  readonly env?: Readonly<Record<string, string>>;
  /** Arguments for a follow-up in the same worktree (e.g. claude's --continue); default `args`. */
  readonly continueArgs?: readonly string[];
  readonly description?: string;
  /** Set when the CLI prints JSON events: the Agents view then shows its step, usage and answer. */
  readonly output?: ProfileOutput;
  /** Checks this profile's agents instead of `parallelAgents.checkCommand` (argv, no shell). */
  readonly checkCommand?: readonly string[];
  /** 'stdin': the task is written to the CLI's standard input, which is then closed (headless only). */
  readonly promptVia?: PromptVia;
  /** The provider whose limits it shares (parallelAgents.providerLimits); default from its command (providers.ts). */
  readonly provider?: string;
  /** Runs the agent sandboxed (node/sandbox): its writes, reads and network limited by this policy. */
  readonly sandbox?: SandboxPolicy;
  /** Used instead of `args` / `continueArgs` when sandboxed: the CLI's auto-approve flags (autoApprove.ts). */
  readonly sandboxArgs?: readonly string[];
  readonly sandboxContinueArgs?: readonly string[];
}

/** The executable name that stands for the demo agent shipped with the extension. */
export const demoCommand = '${demoAgent}';
export const promptPlaceholder = '${prompt}';

// Presets: the flags each CLI documents for non-interactive work that edits files (sources and
// what was verified against the real CLIs: test/agents/realClis.test.ts). Where a CLI takes the
// prompt as a positional argument, `--` comes first: a prompt that starts with "-" (a Markdown
// list) would otherwise be read as an option. Gemini, Copilot and Aider take the prompt as an
// option's value, given in one argument (`--prompt=...`, `--message=...`): with `-p <prompt>` they
// read such a prompt as an option and stop with a usage error (seen with gemini 0.61 and copilot
// 1.0.102; aider's argparse accepts `--message=-x` too).
const claudeHeadless = [
  '-p',
  '--permission-mode',
  'acceptEdits',
  '--output-format',
  'stream-json',
  '--verbose',
  '--',
  promptPlaceholder,
];
const geminiHeadless = [
  `--prompt=${promptPlaceholder}`,
  '--approval-mode',
  'auto_edit',
  '--skip-trust',
  '--output-format',
  'stream-json',
];
const copilotHeadless = [
  `--prompt=${promptPlaceholder}`,
  '--allow-all-tools',
  '--no-ask-user',
  '--output-format',
  'json',
];

// Each preset's sandboxed arguments (auto-approve flags) are in autoApprove.ts.
const presets: readonly Profile[] = [
  {
    name: 'demo',
    command: demoCommand,
    args: [promptPlaceholder],
    mode: 'headless',
    // Asked for its own JSON lines, it reports its summary as its final message (ownEvents.ts).
    env: { DEMO_AGENT_OUTPUT: ownOutput },
    output: ownOutput,
    description: 'Deterministic demo agent shipped with the extension (no API key)',
  },
  // Without a permission mode a headless run that wants to edit exits 0 having edited nothing.
  {
    name: 'claude',
    command: 'claude',
    args: claudeHeadless,
    continueArgs: ['--continue', ...claudeHeadless],
    mode: 'headless',
    output: 'claude-stream-json',
    description: 'Claude Code, headless (accepts edits; JSON lines output)',
  },
  {
    name: 'claude-terminal',
    command: 'claude',
    args: ['--', promptPlaceholder],
    continueArgs: ['--continue', '--', promptPlaceholder],
    mode: 'terminal',
    description: 'Claude Code, interactive in a terminal',
  },
  {
    name: 'codex',
    command: 'codex',
    args: ['exec', '--json', '-s', 'workspace-write', '--', promptPlaceholder],
    continueArgs: ['exec', '--json', '-s', 'workspace-write', 'resume', '--last', '--', promptPlaceholder],
    mode: 'headless',
    output: 'codex-json',
    description: 'OpenAI Codex CLI (workspace-write sandbox; JSON lines output)',
  },
  // A new worktree is an untrusted folder to Gemini: without --skip-trust it exits 55 at once.
  {
    name: 'gemini',
    command: 'gemini',
    args: geminiHeadless,
    continueArgs: ['--resume', 'latest', ...geminiHeadless],
    mode: 'headless',
    output: 'gemini-stream-json',
    description: 'Gemini CLI (auto-approves edits; JSON lines output)',
  },
  {
    name: 'aider',
    command: 'aider',
    args: ['--yes-always', `--message=${promptPlaceholder}`],
    mode: 'headless',
    description: 'Aider',
  },
  // `opencode run` quotes a message argument that holds a space (the model reads `"fix the bug"`):
  // the task goes on standard input, which it reads verbatim. `run` allows edits by default.
  {
    name: 'opencode',
    command: 'opencode',
    args: ['run', '--format', 'json'],
    continueArgs: ['run', '--continue', '--format', 'json'],
    mode: 'headless',
    promptVia: 'stdin',
    output: 'opencode-json',
    description: 'OpenCode (task on standard input; JSON lines output)',
  },
  {
    name: 'cursor',
    command: 'cursor-agent',
    args: ['-p', '--trust', '--', promptPlaceholder],
    continueArgs: ['-p', '--trust', '--continue', '--', promptPlaceholder],
    mode: 'headless',
    description: 'Cursor CLI, print mode (edits in the workspace; no --force)',
  },
  // Without --allow-all-tools, --prompt exits 0 having edited nothing; its JSON marks each refused
  // tool "denied", which ends the agent as needs-permission.
  {
    name: 'copilot',
    command: 'copilot',
    args: copilotHeadless,
    continueArgs: ['--continue', ...copilotHeadless],
    mode: 'headless',
    output: 'copilot-json',
    description: 'GitHub Copilot CLI (all tools allowed; JSON lines output)',
  },
];
export const builtinProfiles: readonly Profile[] = presets.map(withAutoApprove);

/**
 * Replaces `${prompt}` in each argument. An argument that is exactly the placeholder becomes the
 * prompt byte-for-byte, so the prompt is always ONE argv element; nothing is ever split or quoted.
 */
export function expandArgs(args: readonly string[], prompt: string): string[] {
  return args.map((arg) => (arg === promptPlaceholder ? prompt : arg.split(promptPlaceholder).join(prompt)));
}

/** User profiles override built-ins of the same name; invalid entries are reported, not dropped silently. */
export function mergeProfiles(user: readonly unknown[]): { profiles: Profile[]; problems: string[] } {
  const byName = new Map<string, Profile>(builtinProfiles.map((p) => [p.name, p]));
  const problems: string[] = [];
  user.forEach((raw, index) => {
    // An entry naming a built-in without a command changes only what it sets ({"name": "claude", "sandbox": …}).
    const builtin = builtinProfiles.find((p) => p.name === (raw as Profile | null)?.name);
    const inherits = builtin !== undefined && typeof raw === 'object' && raw !== null && !('command' in raw);
    const checked = validateProfile(inherits ? { ...builtin, ...raw } : raw);
    if (typeof checked === 'string') {
      problems.push(`parallelAgents.profiles[${index}]: ${checked}`);
    } else {
      byName.set(checked.name, checked);
    }
  });
  return { profiles: [...byName.values()], problems };
}

export function validateProfile(raw: unknown): Profile | string {
  if (typeof raw !== 'object' || raw === null) {
    return 'a profile must be an object';
  }
  const p = raw as Record<string, unknown>;
  if (typeof p.name !== 'string' || p.name.trim() === '') {
    return '"name" must be a non-empty string';
  }
  if (typeof p.command !== 'string' || p.command.trim() === '') {
    return `profile "${p.name}": "command" must be a non-empty string`;
  }
  const args = p.args ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) {
    return `profile "${p.name}": "args" must be an array of strings`;
  }
  const mode = p.mode ?? 'headless';
  if (mode !== 'headless' && mode !== 'terminal') {
    return `profile "${p.name}": "mode" must be "headless" or "terminal"`;
  }
  const continueArgs = p.continueArgs;
  if (
    continueArgs !== undefined &&
    (!Array.isArray(continueArgs) || !continueArgs.every((a) => typeof a === 'string'))
  ) {
    return `profile "${p.name}": "continueArgs" must be an array of strings`;
  }
  const checkCommand = p.checkCommand;
  if (
    checkCommand !== undefined &&
    (!Array.isArray(checkCommand) || !checkCommand.every((a) => typeof a === 'string'))
  ) {
    return `profile "${p.name}": "checkCommand" must be an array of strings`;
  }
  const env = p.env ?? {};
  if (typeof env !== 'object' || env === null || !Object.values(env).every((v) => typeof v === 'string')) {
    return `profile "${p.name}": "env" must map names to strings`;
  }
  const output = p.output;
  if (output !== undefined && !profileOutputs.includes(output as ProfileOutput)) {
    return `profile "${p.name}": "output" must be one of ${profileOutputs.map((o) => `"${o}"`).join(', ')}`;
  }
  if (p.provider !== undefined && (typeof p.provider !== 'string' || p.provider.trim() === '')) {
    return `profile "${p.name}": "provider" must be a non-empty string`;
  }
  const sandbox = sandboxFields(p);
  if (typeof sandbox === 'string') {
    return `profile "${p.name}": ${sandbox}`;
  }
  const promptProblem = checkPromptVia(p.promptVia, mode, [args as string[], (continueArgs ?? []) as string[]]);
  if (promptProblem !== undefined) {
    return `profile "${p.name}": ${promptProblem}`;
  }
  return {
    name: p.name,
    command: p.command,
    args: args as string[],
    mode,
    env: env as Record<string, string>,
    ...(continueArgs ? { continueArgs: continueArgs as string[] } : {}),
    description: typeof p.description === 'string' ? p.description : undefined,
    ...(output !== undefined ? { output: output as ProfileOutput } : {}),
    ...(checkCommand !== undefined ? { checkCommand: checkCommand as string[] } : {}),
    ...(p.promptVia !== undefined ? { promptVia: p.promptVia as PromptVia } : {}),
    ...(typeof p.provider === 'string' ? { provider: p.provider.trim() } : {}),
    ...sandbox,
  };
}

/** A task on standard input needs a process whose input is ours (headless) and no `${prompt}` argument too. */
function checkPromptVia(promptVia: unknown, mode: string, argLists: readonly string[][]): string | undefined {
  if (promptVia === undefined || promptVia === 'argument') {
    return undefined;
  }
  if (!promptVias.includes(promptVia as PromptVia)) {
    return `"promptVia" must be one of ${promptVias.map((v) => `"${v}"`).join(', ')}`;
  }
  if (mode !== 'headless') {
    return '"promptVia": "stdin" needs "mode": "headless" (a terminal\'s input is the user\'s keyboard)';
  }
  if (argLists.some((args) => args.some((a) => a.includes(promptPlaceholder)))) {
    return `with "promptVia": "stdin" the task goes to standard input: remove "${promptPlaceholder}" from the arguments`;
  }
  return undefined;
}

export function findProfile(profiles: readonly Profile[], name: string): Profile {
  const profile = profiles.find((p) => p.name === name);
  if (!profile) {
    throw new AgentError('unknownProfile', { name });
  }
  return profile;
}
