/** The texts of the codes of parallelAgents.worktreeEnv and portRange (see core/agents/worktreeEnv.ts) */
import { l10n, type Texts } from './textTemplate';

export const envTexts = {
  worktreeEnvNotObject: () =>
    l10n.t(
      'parallelAgents.worktreeEnv must be an object of variable names and values, such as {"PORT": "${freePort}"}. Nothing was created.',
    ),
  worktreeEnvBadName: (d) =>
    l10n.t(
      'parallelAgents.worktreeEnv: "{0}" is not an environment variable name (letters, digits and _, not starting with a digit). Nothing was created.',
      d.name,
    ),
  worktreeEnvBadValue: (d) =>
    l10n.t('parallelAgents.worktreeEnv: the value of {0} must be a string on one line. Nothing was created.', d.name),
  worktreeEnvBadPlaceholder: (d) =>
    l10n.t(
      'parallelAgents.worktreeEnv: {0} uses {1}, which is not a placeholder; use ${agentIndex}, ${freePort} or ${freePort:name}. Nothing was created.',
      d.name,
      d.placeholder,
    ),
  invalidPortRange: (d) =>
    l10n.t(
      'parallelAgents.portRange "{0}" is not a port range such as 3100-3999 (ports 1024 to 65535, the first not above the last). Nothing was created.',
      d.range,
    ),
  portRangeExhausted: (d) =>
    l10n.t(
      'No free port left in parallelAgents.portRange {0}: the agent needs {1}, {2} are free (the others are held by agents not yet merged or discarded, or in use). Merge or discard finished agents, or widen the range. Nothing was created.',
      d.range,
      d.needed,
      d.free,
    ),
  agentHasNoPorts: (d) =>
    l10n.t(
      'Agent "{0}" holds no port: it was dispatched without ${freePort} in parallelAgents.worktreeEnv, or it was merged or discarded.',
      d.title,
    ),
} satisfies Partial<Texts>;
