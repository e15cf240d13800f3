/**
 * `parallel-agents-json`: the extension's own output format, printed by the demo agent and open to
 * any script or wrapper that wants its step and final message shown. One JSON object a line; other
 * lines (plain text) are ignored, so it mixes with ordinary output. Every field but `type` is optional:
 *
 *   {"type":"start"}                          a run begins (a follow-up's run starts afresh)
 *   {"type":"step","step":"Edit src/a.ts"}    what the agent is doing now
 *   {"type":"result","result":"…","turns":3,"inputTokens":1200,"outputTokens":300,"costUsd":0.01,"isError":false}
 *                                             how the run ended: its final message, usage, and
 *                                             whether the agent itself reports a failure
 */
import { type AgentProgress, type Json, stepLine } from './runState';

export const ownOutput = 'parallel-agents-json';

/** What one line of the format tells; absent fields leave what earlier lines told. */
export type OwnEvent = AgentProgress & { readonly result?: string; readonly isError?: boolean };

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
const count = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;

export function startsOwnRun(event: Json): boolean {
  return event.type === 'start';
}

export function readOwnEvent(event: Json): OwnEvent {
  if (event.type === 'step') {
    const step = text(event.step);
    return step === undefined ? {} : { step: stepLine(step) };
  }
  if (event.type !== 'result') {
    return {};
  }
  const told: Record<string, unknown> = {
    turns: count(event.turns),
    inputTokens: count(event.inputTokens),
    outputTokens: count(event.outputTokens),
    costUsd: count(event.costUsd),
    result: text(event.result),
    isError: typeof event.isError === 'boolean' ? event.isError : undefined,
  };
  return Object.fromEntries(Object.entries(told).filter(([, v]) => v !== undefined)) as OwnEvent;
}

/** The JSON line of `event` (with its `type`), as a program writing the format prints it. */
export function ownEventLine(type: 'start' | 'step' | 'result', event: OwnEvent = {}): string {
  return `${JSON.stringify({ type, ...event })}\n`;
}
