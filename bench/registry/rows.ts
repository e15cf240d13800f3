// The table rows of the `propagation` and `registry` sections.
import { ms, type Row } from '../stats';
import type { PropagationResult } from './propagation';
import type { RegistrySection } from './section';

/** Issue 19, Scale: the Agents view's rows and file rows of 200 agents built in at most this. */
export const treeSnapshotTargetMs = 10;

function propagationRows(p: PropagationResult): Row[] {
  return p.runs.flatMap((run): Row[] => {
    const l = run.latency;
    const rows: Row[] = [
      {
        figure: `cross-window propagation, ${run.load}: p50 / p95 / max`,
        value: `${ms(l.p50)} / ${ms(l.p95)} / ${ms(l.max)}`,
        target: `≤ ${p.targetMs} ms`,
        pass: l.missing === 0 && l.max <= p.targetMs,
      },
      {
        figure: `  arrived (of ${p.samplesPerRun}); save() median; max incl. IPC report`,
        value: `${l.count}; ${ms(run.medianSaveMs)}; ${ms(run.reportedMax)}`,
      },
    ];
    if (run.writes) {
      rows.push({
        figure: `  the ${run.writes.windows} other windows' writes / s, failed writes`,
        value: `${run.writes.perSecond.toFixed(0)}, ${run.writes.failures}`,
        target: 'context',
      });
    }
    return rows;
  });
}

function registryCostRows(r: RegistrySection): Row[] {
  const rows: Row[] = [
    {
      figure: `activation work with ${r.records} records vs 0, plain Node (added, median of ${r.rounds} pairs)`,
      value: ms(r.addedMedianMs),
      target: `≤ ${r.targetAddedMs} ms`,
      pass: r.addedMedianMs <= r.targetAddedMs && r.recordsLoaded === r.records,
    },
    {
      figure: '  added, p95',
      value: ms(r.addedP95Ms),
      target: `≤ ${r.targetAddedMs} ms`,
      pass: r.addedP95Ms <= r.targetAddedMs,
    },
    {
      figure: '  with: registry load / manager restore / plans / view model',
      value: [
        r.withRecords.registryLoad,
        r.withRecords.agentManager,
        r.withRecords.planService,
        r.withRecords.viewModel,
      ]
        .map((v) => ms(v))
        .join(' / '),
    },
    { figure: '  total with / without records (medians)', value: `${ms(r.withRecords.total)} / ${ms(r.empty.total)}` },
  ];
  const { empty, withRecords } = r.vscode;
  if (empty.available && withRecords.available) {
    const added = withRecords.medianActivationMs - empty.medianActivationMs;
    rows.push(
      {
        figure: `activation in VS Code, ${withRecords.agentCount} records vs 0 (medians of ${withRecords.launches} / ${empty.launches} launches)`,
        value: `${ms(withRecords.medianActivationMs)} vs ${ms(empty.medianActivationMs)} (+${ms(added)})`,
        target: `≤ ${r.targetAddedMs} ms added`,
        pass: added <= r.targetAddedMs && withRecords.agentCount === r.records,
      },
      {
        figure: '  whole tree walked once (api.viewSnapshot: every row and file row, cold) with / without',
        value: `${ms(withRecords.medianViewSnapshotMs)} / ${ms(empty.medianViewSnapshotMs)}`,
      },
      {
        figure: `tree snapshot, ${withRecords.agentCount} agents and their file rows, built again (median of 5 per launch)`,
        value: ms(withRecords.medianViewSnapshotWarmMs),
        target: `≤ ${treeSnapshotTargetMs} ms`,
        pass: withRecords.medianViewSnapshotWarmMs <= treeSnapshotTargetMs,
      },
    );
  } else {
    const reason = !empty.available ? empty.reason : !withRecords.available ? withRecords.reason : '';
    rows.push({ figure: 'activation in VS Code with 200 records', value: 'unavailable', target: reason.slice(0, 60) });
  }
  return rows;
}

export function registryRows(propagation?: PropagationResult, registry?: RegistrySection): Row[] {
  return [...(propagation ? propagationRows(propagation) : []), ...(registry ? registryCostRows(registry) : [])];
}
