import * as vscode from 'vscode';
import type { AgentRecord } from '../../core/agent';
import type { ProcessUsage } from '../../core/usage';
import type { Event } from '../../util/event';
import { byteSize } from '../byteSize';

/** What the Agents view shows of each agent's cost (ui/agentCosts.ts): read from memory only. */
export interface AgentCosts {
  /** CPU and memory of the agent's process tree, while the view is visible and the agent runs. */
  usage(id: string): ProcessUsage | undefined;
  /** The size of its worktree, when it was measured and is still current; never measures. */
  diskBytes(record: AgentRecord): number | undefined;
  /**
   * Measures the record's worktree unless its size is current, waiting at most `waitMs`: done by
   * then, its row is not redrawn (a hover being built would close); else it is, once measured.
   */
  measureWithin(record: AgentRecord, waitMs: number): Promise<void>;
  /** Fires with the agents whose figures changed. */
  readonly onDidChange: Event<readonly string[]>;
}

/** "12% · 340.0 MB" on a running agent's row; memory alone until a second sample gives the CPU. */
export function usageBadge(usage: ProcessUsage | undefined): string | undefined {
  if (!usage) {
    return undefined;
  }
  const memory = byteSize(usage.rssBytes);
  return usage.cpuPercent === undefined ? memory : `${Math.round(usage.cpuPercent)}% · ${memory}`;
}

/** The tooltip's rows: CPU, memory (with the number of processes) and the worktree's disk. */
export function costRows(
  usage: ProcessUsage | undefined,
  diskBytes: number | undefined,
): [string, string | undefined][] {
  return [
    [
      vscode.l10n.t('CPU'),
      usage?.cpuPercent === undefined ? undefined : vscode.l10n.t('{0}% of a core', usage.cpuPercent.toFixed(1)),
    ],
    [
      vscode.l10n.t('Memory'),
      usage ? vscode.l10n.t('{0} in {1} processes', byteSize(usage.rssBytes), usage.processes) : undefined,
    ],
    [vscode.l10n.t('Disk'), diskBytes === undefined ? undefined : byteSize(diskBytes)],
  ];
}
