/**
 * The demo agent's planner: a prompt made by planningPrompt() is answered with a plan instead of file
 * edits, deterministically. One task per sentence (or line) of the description, at most 8; ids
 * `t<n>-<first words>`; each prompt creates `plan/<id>.txt` holding the task's title, so the tasks
 * never touch the same file. The first task is the foundation every other task depends on, and the
 * last depends on all the others: a diamond from 3 tasks on.
 */
import { readPlanningRequest } from '../core/plans';
import type { Plan, PlanTask } from '../core/plans';

const maxTasks = 8;
const maxTitle = 60;

/** The whole reply (progress line, prose, one ```json block) for a planning request, else undefined. */
export function planReply(prompt: string): string | undefined {
  const request = readPlanningRequest(prompt);
  if (!request) {
    return undefined;
  }
  const plan = demoPlan(request.description, request.profiles);
  return [
    `[demo] plan request: ${plan.tasks.length} task(s), no file changed`,
    `Here is a plan of ${plan.tasks.length} task(s) for "${plan.title}".`,
    '',
    '```json',
    JSON.stringify(plan, null, 2),
    '```',
    '',
  ].join('\n');
}

export function demoPlan(description: string, profiles: readonly string[]): Plan {
  const titles = sentences(description).slice(0, maxTasks);
  if (titles.length === 0) {
    titles.push('Untitled change');
  }
  const ids = titles.map((title, i) => taskId(title, i + 1));
  const profile = profiles.includes('demo') ? { profile: 'demo' } : {};
  const tasks = titles.map(
    (title, i): PlanTask => ({
      id: ids[i],
      title,
      prompt: `create plan/${ids[i]}.txt: ${title.replace(/\\/g, '\\\\')}\\n`,
      ...profile,
      dependsOn: dependencies(ids, i),
    }),
  );
  return { title: titles[0], tasks };
}

/** Task i depends on the first task; the last one (from 3 tasks on) on every other task. */
function dependencies(ids: readonly string[], i: number): string[] {
  if (i === 0) {
    return [];
  }
  return i === ids.length - 1 ? ids.slice(0, i) : [ids[0]];
}

/** Non-empty sentences, line by line, without list bullets or final punctuation. */
export function sentences(description: string): string[] {
  return description
    .split(/\r?\n/)
    .map((line) => line.trim().replace(/^(?:[-*+•]|\d+[.)])\s+/, ''))
    .flatMap((line) => line.split(/(?<=[.!?])\s+(?=\S)/))
    .map((s) =>
      s
        .trim()
        .replace(/[.!?]+$/, '')
        .trim(),
    )
    .filter((s) => s !== '')
    .map((s) => (s.length > maxTitle ? `${s.slice(0, maxTitle - 3)}...` : s));
}

function taskId(title: string, n: number): string {
  const words =
    title
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .match(/[a-z0-9]+/g) ?? [];
  return words.length > 0 ? `t${n}-${words.slice(0, 3).join('-')}` : `t${n}`;
}
