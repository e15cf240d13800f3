// The table rows of the `scale` section (issue 19, Scale: refresh of 200 agents).
import { ms, type Row } from '../stats';
import type { RefreshFigures } from './refresh';

export function scaleRows(s: RefreshFigures | undefined): Row[] {
  if (!s) {
    return [];
  }
  const exact = s.sameAsPrevious === s.agents;
  return [
    {
      figure: `Refresh, ${s.agents} agents (worktrees of ${s.repositoryFiles} files), none changed since computed (median)`,
      value: ms(s.refreshMedianMs),
      target: `≤ ${s.targetMs} ms`,
      pass: s.refreshMedianMs <= s.targetMs && exact,
    },
    {
      figure: `  ${s.someChanged} of them changed just before (median)`,
      value: ms(s.refreshSomeChangedMedianMs),
      target: `≤ ${s.targetMs} ms`,
      pass: s.refreshSomeChangedMedianMs <= s.targetMs && exact,
    },
    {
      figure: '  every one changed / the computation before, every agent at once',
      value: `${ms(s.refreshAllChangedMedianMs)} / ${ms(s.previousMedianMs)}`,
      target: 'context',
    },
    {
      figure: `  one bare git process per agent (${s.agents} at once) / background pass after a refresh`,
      value: `${ms(s.spawnFloorMedianMs)} / ${ms(s.backgroundMedianMs)}`,
      target: 'context',
    },
    {
      figure: '  change sets equal to a new computation with the previous code',
      value: `${s.sameAsPrevious} of ${s.agents}`,
      target: `${s.agents}`,
      pass: exact,
    },
  ];
}
