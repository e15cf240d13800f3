/**
 * The exchange with a planning agent: the request it is sent (planningPrompt, read back by
 * readPlanningRequest) and the plan JSON pulled out of its free-form reply (extractPlanJson).
 */

/** A line of its own in every planning request; the demo agent answers such a prompt with a plan. */
export const planRequestMarker = '[parallel-agents:plan-request]';

/**
 * The plan JSON in a planning agent's reply: the last ```json fenced block that parses and has a
 * "tasks" array; else the largest balanced {...} that does (a prompt quoting ``` cuts a fence
 * short); else the last fenced block that parses at all, so validation can say what is wrong.
 */
export function extractPlanJson(reply: string): string | undefined {
  const fenced = [...reply.matchAll(/```json[^\n]*\n([\s\S]*?)```/gi)]
    .map((m) => m[1].trim())
    .filter((text) => parses(text) !== undefined);
  const fencedPlans = fenced.filter((text) => hasTasks(parses(text)));
  return fencedPlans[fencedPlans.length - 1] ?? largestBalancedPlan(reply) ?? fenced[fenced.length - 1];
}

function largestBalancedPlan(reply: string): string | undefined {
  let best: string | undefined;
  let end = -1;
  for (let start = reply.indexOf('{'); start !== -1; start = reply.indexOf('{', start + 1)) {
    if (start < end) {
      continue; // inside a candidate already taken, so no larger one starts here
    }
    const close = matchingBrace(reply, start);
    const candidate = close === undefined ? undefined : reply.slice(start, close + 1);
    if (candidate !== undefined && hasTasks(parses(candidate))) {
      end = close as number;
      best = best === undefined || candidate.length > best.length ? candidate : best;
    }
  }
  return best;
}

function parses(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

function hasTasks(parsed: { value: unknown } | undefined): boolean {
  return parsed !== undefined && isObject(parsed.value) && Array.isArray(parsed.value.tasks);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Index of the `}` closing the `{` at `start`, skipping braces inside JSON strings. */
function matchingBrace(text: string, start: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') {
        i++;
      } else if (c === '"') {
        inString = false;
      }
    } else if (c === '"') {
      inString = true;
    } else if (c === '{' || c === '}') {
      depth += c === '{' ? 1 : -1;
      if (depth === 0) {
        return i;
      }
    }
  }
  return undefined;
}

const descriptionStart = '--- change description ---';
const descriptionEnd = '--- end of change description ---';
const profilesLine = 'Agent profiles you may name in "profile":';

/** The request sent to a planning agent; readPlanningRequest() reads it back. */
export function planningPrompt(description: string, profiles: readonly string[]): string {
  return [
    planRequestMarker,
    'Break the change described below into a plan of tasks for coding agents that work in parallel.',
    'Do not change any files. Reply with the plan only.',
    '',
    'Rules:',
    '- Each task is done by a separate agent in its own git worktree. It starts from the work of the tasks it depends on and sees nothing else.',
    '- Make tasks as independent as possible, so they can run at the same time; give them separate files where you can.',
    '- "dependsOn" lists the id of every task whose work a task needs. No cycles. Tasks without dependencies start first.',
    '- Each "prompt" is self-contained: its agent sees only that prompt and the repository, not this description or the other tasks. Name the files, functions and behaviour to change, and how to check the result.',
    '- "id": short and unique; letters, digits, "-", "_" and "." only (e.g. "api-client"). "title": one short line.',
    '- Usually 2 to 8 tasks.',
    ...(profiles.length > 0
      ? [`- ${profilesLine} ${profiles.join(', ')}. Leave "profile" out to use the default.`]
      : []),
    '',
    'The plan is JSON of this shape ("maxParallel", "base", "profile" and "isolation" ("worktree" or "terminal") are optional):',
    '{',
    '  "title": "Short title of the whole change",',
    '  "tasks": [',
    '    { "id": "db", "title": "Add the users table", "prompt": "Self-contained instructions...", "dependsOn": [] },',
    '    { "id": "api", "title": "Users API", "prompt": "Self-contained instructions...", "dependsOn": ["db"] }',
    '  ]',
    '}',
    '',
    'Reply with exactly ONE ```json fenced block that holds the plan, and nothing else.',
    '',
    descriptionStart,
    description.trim(),
    descriptionEnd,
    '',
  ].join('\n');
}

/** The description and profiles of a prompt made by planningPrompt(); undefined for any other prompt. */
export function readPlanningRequest(prompt: string): { description: string; profiles: string[] } | undefined {
  const lines = prompt.split(/\r?\n/).map((l) => l.trim());
  const start = lines.indexOf(descriptionStart);
  const end = lines.lastIndexOf(descriptionEnd);
  if (!lines.includes(planRequestMarker) || start === -1 || end < start) {
    return undefined;
  }
  const listed = lines.find((l) => l.startsWith(`- ${profilesLine} `));
  const profiles =
    listed === undefined
      ? []
      : listed
          .slice(profilesLine.length + 3)
          .replace(/\. Leave .*$/, '')
          .split(', ');
  return {
    description: prompt
      .split(/\r?\n/)
      .slice(start + 1, end)
      .join('\n')
      .trim(),
    profiles,
  };
}

/**
 * The agent's answer as text. CLIs that report in JSON lines (Claude Code's and Gemini CLI's
 * `stream-json`) escape the answer's newlines, so a plan inside it is read from the events: Claude's
 * final `result` text, else Gemini's assistant `message` contents. Plain output is returned as is.
 */
export function replyText(log: string): string {
  const events = log.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) {
      return [];
    }
    try {
      return [JSON.parse(line) as { type?: unknown; result?: unknown; role?: unknown; content?: unknown }];
    } catch {
      return [];
    }
  });
  const result = events.filter((e) => e.type === 'result' && typeof e.result === 'string').at(-1);
  if (result) {
    return result.result as string;
  }
  const said = events
    .filter((e) => e.type === 'message' && e.role === 'assistant' && typeof e.content === 'string')
    .map((e) => e.content as string);
  return said.length > 0 ? said.join('') : log;
}
