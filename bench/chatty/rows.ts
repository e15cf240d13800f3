// The `chatty` and `idle` rows of the bench table.
import { ms, type Row } from '../stats';
import type { IdleResult } from './idle';
import type { ChattyCase, ChattyResult } from './measure';

const pct = (fraction: number) => `${(fraction * 100).toFixed(1)}%`;

function caseRows(c: ChattyCase, targets: ChattyResult['targets'], graded: boolean): Row[] {
  const what = c.format === 'claude' ? 'JSON events (claude stream-json), parsed' : 'plain text, no output view';
  const mb = c.bytesPerAgent / 1024 / 1024;
  const grade = (pass: boolean) => (graded ? pass : undefined);
  const target = (text: string) => (graded ? text : 'context');
  const { raw, agents, outputOnly } = c.worst;
  return [
    {
      figure: `${c.agents} agents × ${mb} MB, ${what} (median of ${c.rounds.length}): agents / files`,
      value: `${c.ratio.toFixed(2)}×`,
      target: target(`≤ ${targets.ratio}×`),
      pass: grade(c.ratio <= targets.ratio),
    },
    {
      figure: '  agents (go → the host saw every end) / the writers writing to files',
      value: `${ms(c.medianAgentsMs)} / ${ms(c.medianRawMs)}`,
    },
    {
      figure: '  extension-host event-loop delay p99, output path (worst round)',
      value: ms(outputOnly.lagP99Ms),
      target: target(`≤ ${targets.lagP99Ms} ms`),
      pass: grade(outputOnly.lagP99Ms <= targets.lagP99Ms),
    },
    {
      figure: '  extension-host event-loop delay max, output path (worst round)',
      value: ms(outputOnly.lagMaxMs),
      target: target(`≤ ${targets.lagMaxMs} ms`),
      pass: grade(outputOnly.lagMaxMs <= targets.lagMaxMs),
    },
    {
      figure: '  baseline: the same, idle here while the writers write to files, p99 / max',
      value: `${ms(raw.lagP99Ms)} / ${ms(raw.lagMaxMs)}`,
      target: 'context',
    },
    {
      figure: '  same with each end refreshing its change set (git spawns), p99 / max',
      value: `${ms(agents.lagP99Ms)} / ${ms(agents.lagMaxMs)}`,
      target: 'context',
    },
    {
      figure: '  extension-host CPU, go → every end seen (worst round)',
      value: `${pct(agents.hostCpu)} of a core`,
      target: target(`≤ ${pct(targets.hostCpu)}`),
      pass: grade(agents.hostCpu <= targets.hostCpu),
    },
    {
      figure: '  logs and files differing from what was printed (byte compare)',
      value: String(c.differing),
      target: '0',
      pass: c.differing === 0,
    },
  ];
}

/* eslint-disable @typescript-eslint/no-explicit-any -- reads back the section's own result */
export function chattyRows(chatty: any): Row[] {
  if (!chatty) {
    return [];
  }
  const c = chatty as ChattyResult;
  return [
    ...(c.text ? caseRows(c.text, c.targets, true) : []),
    ...(c.claude ? caseRows(c.claude, c.targets, false) : []),
  ];
}

export function idleRows(idle: any): Row[] {
  if (!idle) {
    return [];
  }
  const i = idle as IdleResult;
  return [
    {
      figure: `${i.agents} idle agents: extension-host CPU added (${i.seconds} s each way)`,
      value: `${pct(i.addedCpu)} of a core`,
      target: `≤ ${pct(i.targetAddedCpu)}`,
      pass: i.addedCpu <= i.targetAddedCpu,
    },
    {
      figure: '  host with the agents / baseline: the same host before they were dispatched',
      value: `${pct(i.withAgentsCpu)} / ${pct(i.baselineCpu)}`,
    },
    { figure: '  their supervisors, all together', value: `${pct(i.supervisorsCpu)} of a core`, target: 'context' },
    {
      figure: "  a running row's clock refreshes in its first hour (before: every second)",
      value: `${i.rowRefreshesFirstHour} / ${i.rowRefreshesFirstHourBefore}`,
      target: 'context',
    },
  ];
}
/* eslint-enable @typescript-eslint/no-explicit-any */
