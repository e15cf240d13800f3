/**
 * Agent CLIs: the profiles that say how to run each CLI (argv, how the task reaches it, environment,
 * output format), and the readers of what they print (the JSON lines of Claude, Codex, Gemini, Copilot
 * and OpenCode) into progress, usage, permission denials and a final message; also which revived
 * terminal belongs to which agent.
 */
export { ProgressFeed, systemTimers } from './agentProgress';
export type { Timers } from './agentProgress';
export { ownEventLine, ownOutput } from './ownEvents';
export type { OwnEvent } from './ownEvents';
export { demoCommand, expandArgs, findProfile, mergeProfiles } from './profiles';
export type { Profile, ProfileOutput, PromptVia } from './profiles';
export { agentIdVariable, closeExit, findTerminalByPid, reviveWaitMs } from './terminalAgents';
export type { CloseReason } from './terminalAgents';
export { detectQuotaStop, resetTime } from './quotaSignals';
export type { QuotaSignal } from './quotaSignals';
export { providerCaps, providerOf } from './providers';
