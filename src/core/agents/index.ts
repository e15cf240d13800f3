/**
 * Agents: an agent's life from Dispatch to its end. The manager keeps the records and their state
 * machine, checks a dispatch, has its worktree made (core/worktrees), starts the run (one agent's
 * process, its output and progress) and follows the files it changes. Everything else reads agents from here.
 */
export { AgentManager } from './agentManager';
export type { DispatchOptions } from './agentManager';
export type { DispatchStart } from './managerDeps';
export { inputState } from './inputState';
export type { InputState } from './inputState';
export { checkEnd, checkVerdict, fixPrompt, checkCommandFor, fixOutputBytes } from './checks';
export type { FolderCheck } from './folderCheck';
export type { CheckVerdict } from './checks';
export { agentPorts, envFileName } from './worktreeEnv';
export { bestOfLimits, candidatesOf, checkBestOfCount } from './bestOf';
export type { BestOfOptions } from './bestOf';
export { resolveProfile } from './dispatchChecks';
export type { ResolvedProfile } from './dispatchChecks';
export { continuePrompt, reviewRunId } from './runHistory';
export { runArgs } from './sandboxing';
export { planCost } from './budgets';
export { StackRepair, parentMergeMessage } from './stackRepair';
export { parentRanSince } from './stacking';
export type { ParentMerge, ParentRepairStart, StackRepairGit, StackRepairManager } from './stackRepair';
