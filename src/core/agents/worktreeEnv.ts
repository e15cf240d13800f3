/**
 * `parallelAgents.worktreeEnv`: variables each agent gets, from templates with placeholders —
 * `${agentIndex}` (a small index among the repository's live agents), `${freePort}` (a new port
 * per occurrence) and `${freePort:name}` (one port per name per agent). Parsing, the port keys a
 * template needs, expansion and the env file's text; no I/O.
 */
import { AgentError } from '../errors';

/** The env file written into each agent's worktree before its setup command runs (git-excluded). */
export const envFileName = '.parallel-agents.env';

type Part =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'index' }
  | { readonly kind: 'port'; readonly key: string };

export interface EnvVariable {
  readonly name: string;
  readonly parts: readonly Part[];
}

export type EnvTemplate = readonly EnvVariable[];

/** What an agent was given: its index, its ports by key, and the variables expanded from them. */
export interface AgentEnv {
  readonly index: number;
  /** Port key → port: a `${freePort:name}`'s name, or the variable's name for `${freePort}` (`NAME#2` for a second). */
  readonly ports: Readonly<Record<string, number>>;
  readonly vars: Readonly<Record<string, string>>;
}

const variableName = /^[A-Za-z_][A-Za-z0-9_]*$/;
const placeholder = /\$\{([^}]*)\}/g;
const portName = /^freePort:([A-Za-z0-9_.-]+)$/;

/** Validates the setting's value (names, string values, known placeholders); throws a code naming what is wrong. */
export function parseWorktreeEnv(raw: unknown): EnvTemplate {
  if (raw === undefined || raw === null) {
    return [];
  }
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new AgentError('worktreeEnvNotObject', {});
  }
  const named = new Set<string>();
  const variables = Object.entries(raw as Record<string, unknown>).map(([name, value]) => {
    if (!variableName.test(name)) {
      throw new AgentError('worktreeEnvBadName', { name });
    }
    if (typeof value !== 'string' || /[\r\n\0]/.test(value)) {
      throw new AgentError('worktreeEnvBadValue', { name });
    }
    return { name, value };
  });
  for (const { value } of variables) {
    for (const m of value.matchAll(placeholder)) {
      const port = portName.exec(m[1]);
      if (port) {
        named.add(port[1]);
      }
    }
  }
  const used = new Set<string>(named);
  return variables.map(({ name, value }) => ({ name, parts: parseValue(name, value, used) }));
}

function parseValue(name: string, value: string, used: Set<string>): Part[] {
  const parts: Part[] = [];
  let last = 0;
  for (const m of value.matchAll(placeholder)) {
    if (m.index > last) {
      parts.push({ kind: 'text', text: value.slice(last, m.index) });
    }
    last = m.index + m[0].length;
    const inner = m[1];
    const port = portName.exec(inner);
    if (inner === 'agentIndex') {
      parts.push({ kind: 'index' });
    } else if (inner === 'freePort') {
      parts.push({ kind: 'port', key: anonymousKey(name, used) });
    } else if (port) {
      parts.push({ kind: 'port', key: port[1] });
    } else {
      throw new AgentError('worktreeEnvBadPlaceholder', { name, placeholder: m[0] });
    }
  }
  if (last < value.length) {
    parts.push({ kind: 'text', text: value.slice(last) });
  }
  return parts;
}

/** `NAME`, then `NAME#2`…: never a key a named port or an earlier occurrence has. */
function anonymousKey(name: string, used: Set<string>): string {
  let key = name;
  for (let n = 2; used.has(key); n++) {
    key = `${name}#${n}`;
  }
  used.add(key);
  return key;
}

/** The distinct port keys the template needs, in order of first use. */
export function portKeys(template: EnvTemplate): string[] {
  const keys = new Set<string>();
  for (const variable of template) {
    for (const part of variable.parts) {
      if (part.kind === 'port') {
        keys.add(part.key);
      }
    }
  }
  return [...keys];
}

/** The variables with every placeholder filled; `ports` must hold every key of portKeys(template). */
export function expandWorktreeEnv(
  template: EnvTemplate,
  index: number,
  ports: Readonly<Record<string, number>>,
): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const variable of template) {
    vars[variable.name] = variable.parts
      .map((part) =>
        part.kind === 'text' ? part.text : part.kind === 'index' ? String(index) : String(ports[part.key]),
      )
      .join('');
  }
  return vars;
}

/** `KEY=value` lines, as written (values hold no line break; parseWorktreeEnv refuses them). */
export function envFileText(vars: Readonly<Record<string, string>>): string {
  return Object.entries(vars)
    .map(([name, value]) => `${name}=${value}\n`)
    .join('');
}

/** Whether an agent still holds its index and ports: until it is merged or discarded (or forgotten). */
export function holdsEnv(record: { readonly status: string; readonly worktreeEnv?: AgentEnv }): boolean {
  return record.worktreeEnv !== undefined && record.status !== 'merged' && record.status !== 'discarded';
}

/** The ports an agent holds now, by key, in the order they were given; [] once it no longer holds them. */
export function agentPorts(record: {
  readonly status: string;
  readonly worktreeEnv?: AgentEnv;
}): { readonly key: string; readonly port: number }[] {
  return holdsEnv(record) ? Object.entries(record.worktreeEnv?.ports ?? {}).map(([key, port]) => ({ key, port })) : [];
}
