/**
 * Sandboxed agents: a profile's `sandbox` policy (what the agent may write, read and reach), the
 * bubblewrap command line that enforces it, and whether a host passes the network filter.
 */
export { bwrapArgs, proxyEnv } from './bwrapArgs';
export type { HiddenPath, SandboxLayout } from './bwrapArgs';
export { describeSandbox, hiddenHomePaths, hostAllowed, unsetVariables, validateSandbox } from './policy';
export type { SandboxPolicy } from './policy';
export { forwarderFds } from './sandboxPort';
export type { Sandbox, SandboxCommand, SandboxForwarder, SandboxLaunch, SandboxRequest } from './sandboxPort';
