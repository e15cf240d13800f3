/**
 * One reader per CLI's JSON events (claude --output-format stream-json, codex exec --json, gemini
 * --output-format stream-json, copilot --output-format json, opencode run --format json), each
 * writing what an event tells into the run's state. Formats are those of the real CLIs, recorded in
 * test/fixtures/agentOutput. A reader lives for one run: the parser makes a new one when the next run
 * in the same log starts.
 */
import { readOwnEvent, startsOwnRun } from './ownEvents';
import type { ProfileOutput } from './profiles';
import { type Json, type RunState, add, list, num, obj, resultLimit, str } from './runState';

export interface EventReader {
  /** The event begins a new run of the CLI (a follow-up's output comes after the first run's). */
  startsRun(event: Json): boolean;
  read(event: Json, run: RunState): void;
}

export function eventReader(format: ProfileOutput): EventReader {
  switch (format) {
    case 'claude-stream-json':
      return { startsRun: (e) => e.type === 'system' && e.subtype === 'init', read: claude };
    case 'codex-json':
      return { startsRun: (e) => e.type === 'thread.started', read: codex };
    case 'gemini-stream-json':
      return { startsRun: (e) => e.type === 'init', read: gemini };
    case 'copilot-json':
      return new CopilotReader();
    case 'opencode-json':
      return new OpenCodeReader();
    case 'parallel-agents-json':
      return { startsRun: startsOwnRun, read: own };
  }
}

/** The extension's own format (ownEvents.ts): the demo agent's, or any script's. */
function own(event: Json, run: RunState): void {
  const { step, result, isError, ...usage } = readOwnEvent(event);
  Object.assign(run.progress, usage, step !== undefined ? { step } : {});
  run.setResult(result);
  run.reportedError = isError ?? run.reportedError;
}

function claude(event: Json, run: RunState): void {
  if (event.type === 'assistant') {
    for (const block of list(obj(event.message).content).map(obj)) {
      if (block.type === 'tool_use') {
        run.step(str(block.name), obj(block.input));
      }
    }
  } else if (event.type === 'system' && event.subtype === 'permission_denied') {
    run.deny(str(event.tool_name), {});
  } else if (event.type === 'result') {
    const usage = obj(event.usage);
    run.usage(num(usage.input_tokens), num(usage.output_tokens), num(event.num_turns));
    run.progress.costUsd = num(event.total_cost_usd) ?? run.progress.costUsd;
    run.setResult(str(event.result));
    // The result lists every denial with its input: it replaces the bare announcements.
    const denied = list(event.permission_denials).map(obj);
    if (denied.length > 0) {
      run.denials = [];
      denied.forEach((d) => run.deny(str(d.tool_name), obj(d.tool_input)));
    }
    run.reportedError = event.is_error === true;
    // `--max-budget-usd` reached: the SDK's result subtype for it (is_error varies between versions).
    run.budgetReached = event.subtype === 'error_max_budget_usd';
  }
}

function codex(event: Json, run: RunState): void {
  const item = obj(event.item);
  if ((event.type === 'item.started' || event.type === 'item.completed') && item.type === 'file_change') {
    const changes = list(item.changes).map(obj);
    const verb = changes.every((c) => c.kind === 'add')
      ? 'Add'
      : changes.every((c) => c.kind === 'delete')
        ? 'Delete'
        : 'Edit';
    run.setStep(verb, changes.map((c) => run.relative(str(c.path) ?? '')).join(', '));
  } else if (event.type === 'item.started' && item.type === 'command_execution') {
    run.setStep('Run', str(item.command) ?? '');
  } else if (event.type === 'item.started' && item.type === 'mcp_tool_call') {
    run.setStep(str(item.tool) ?? 'Tool', '');
  } else if (event.type === 'item.started' && item.type === 'web_search') {
    run.setStep('Search', str(item.query) ?? '');
  } else if (event.type === 'item.completed' && item.type === 'agent_message') {
    run.setResult(str(item.text));
  } else if (event.type === 'turn.completed') {
    const usage = obj(event.usage);
    run.addTurn(num(usage.input_tokens), num(usage.output_tokens));
  }
}

function gemini(event: Json, run: RunState): void {
  if (event.type === 'tool_use') {
    run.step(str(event.tool_name), obj(event.parameters));
    run.answer = '';
  } else if (event.type === 'message' && event.role === 'assistant') {
    const content = str(event.content) ?? '';
    run.answer = event.delta === true ? `${run.answer}${content}`.slice(0, resultLimit * 2) : content;
  } else if (event.type === 'result') {
    const stats = obj(event.stats);
    run.usage(num(stats.input_tokens), num(stats.output_tokens), undefined);
  }
}

/**
 * Copilot CLI: a tool's end names only its call id, so the starts are kept to say which tool was
 * denied. Its JSON carries no token counts (it leaves `assistant.usage` out of its output).
 */
class CopilotReader implements EventReader {
  private readonly calls = new Map<string, { tool?: string; input: Json }>();
  private error?: string;

  startsRun(event: Json): boolean {
    return event.type === 'user.message';
  }

  read(event: Json, run: RunState): void {
    const data = obj(event.data);
    if (event.type === 'assistant.turn_start') {
      run.usage(undefined, undefined, (run.progress.turns ?? 0) + 1);
    } else if (event.type === 'tool.execution_start') {
      const call = { tool: str(data.toolName), input: obj(data.arguments) };
      this.calls.set(str(data.toolCallId) ?? '', call);
      run.step(call.tool, call.input);
    } else if (event.type === 'tool.execution_complete' && data.success === false) {
      const call = this.calls.get(str(data.toolCallId) ?? '');
      if (call && obj(data.error).code === 'denied') {
        run.deny(call.tool, call.input);
      }
    } else if (event.type === 'assistant.message' && list(data.toolRequests).length === 0) {
      run.setResult(str(data.content));
    } else if (event.type === 'session.error') {
      this.error = str(data.message);
    } else if (event.type === 'result' && num(event.exitCode) !== 0) {
      run.reportedError = true;
      run.setResult(this.error);
    }
  }
}

/**
 * OpenCode: each model call is a step (step_start … step_finish with its tokens and cost). Nothing
 * marks the start of a run, so a step after a final one (not ended for tool calls) starts the next.
 */
class OpenCodeReader implements EventReader {
  private ended = true;

  startsRun(event: Json): boolean {
    return event.type === 'step_start' && this.ended;
  }

  read(event: Json, run: RunState): void {
    const part = obj(event.part);
    if (event.type === 'step_start') {
      this.ended = false;
    } else if (event.type === 'tool_use') {
      run.step(str(part.tool), obj(obj(part.state).input));
    } else if (event.type === 'text') {
      run.setResult(str(part.text));
    } else if (event.type === 'step_finish') {
      const tokens = obj(part.tokens);
      run.addTurn(num(tokens.input), num(tokens.output));
      run.progress.costUsd = add(run.progress.costUsd, num(part.cost));
      this.ended = part.reason !== 'tool-calls';
    } else if (event.type === 'error') {
      const error = obj(event.error);
      run.reportedError = true;
      run.setResult(str(obj(error.data).message) ?? str(error.name));
      this.ended = true;
    }
  }
}
