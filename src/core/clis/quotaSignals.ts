/**
 * Whether an agent CLI stopped on a rate limit or usage limit, read from the end of its output, and
 * when the limit resets if the CLI says. Pure: the time is passed in; `Intl` reads time zones.
 *
 * Signatures (seen in the CLIs' own output and their issue trackers):
 * - Claude Code: `Claude AI usage limit reached|1762952400` (epoch seconds), `Claude usage limit
 *   reached. Your limit will reset at 3pm (America/Santiago).`, `You've hit your session limit ·
 *   resets 11:20am (Europe/Budapest)`, `API Error: 429 {"type":"error","error":{"type":"rate_limit_error",…}}`.
 * - Codex: `You've hit your usage limit. Upgrade to Pro (…) or try again in 5 days 22 hours 11
 *   minutes.`, `… or try again at Jul 5th, 2026 8:19 PM.`,
 *   `{"type":"usage_limit_reached",…,"resets_in_seconds":602705}`.
 * - Gemini: `[API Error: {"error":{"code":429,"message":"Resource has been exhausted (e.g. check
 *   quota).","status":"RESOURCE_EXHAUSTED"}}]`, `Quota exceeded for quota metric … Please retry in 23.5s.`
 * - Any: `HTTP 429`, `429 Too Many Requests`, `rate limit exceeded`.
 */

export interface QuotaSignal {
  /** When the limit resets (ms since the epoch), when the output says; undefined: back off instead. */
  readonly resetAt?: number;
  /** The line that told, trimmed and capped: shown on the agent's hover. */
  readonly message: string;
}

const messageLimit = 200;

/** Lines that say the run hit a limit. Checked on lines, so a quoted word in a diff elsewhere rarely matches. */
const limitPatterns: readonly RegExp[] = [
  /\busage limit (?:reached|has been reached)\b/i,
  /\byou've hit your (?:usage |session |weekly |daily )?limit\b/i,
  /\busage_limit_reached\b/,
  /\brate_limit_error\b/,
  /\brate[ -]?limit(?:ed| exceeded| reached)\b/i,
  /\bRESOURCE_EXHAUSTED\b/,
  /\bquota exceeded\b/i,
  /\bexceeded your current quota\b/i,
  /\bresource (?:has been )?exhausted\b/i,
  /\b(?:HTTP|status|code|error)[\s:"]*429\b/i,
  /\b429 Too Many Requests\b/i,
  /\bAPI Error: 429\b/,
];

/** Reads the output's end; undefined when nothing in it says the run hit a limit. */
export function detectQuotaStop(output: string, now: number): QuotaSignal | undefined {
  const lines = output
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const hits = lines.flatMap((l, i) => (limitPatterns.some((p) => p.test(l)) ? [i] : []));
  if (hits.length === 0) {
    return undefined;
  }
  // The last line that gives a reset time (on it or the lines around it: a wrapped message) tells;
  // else the last such line, with no reset time.
  for (const index of [...hits].reverse()) {
    const resetAt =
      resetTime(lines.slice(index, index + 3).join(' '), now) ??
      resetTime(lines.slice(Math.max(0, index - 2), index + 1).join(' '), now);
    if (resetAt !== undefined) {
      return { resetAt, message: capped(lines[index]) };
    }
  }
  return { message: capped(lines[hits[hits.length - 1]]) };
}

/** The reset time a message gives, as an instant after `now`; undefined when it gives none. */
export function resetTime(text: string, now: number): number | undefined {
  return epochReset(text) ?? relativeReset(text, now) ?? clockReset(text, now);
}

/** `…limit reached|1762952400`, `"resets_at":1775317531`, `"resets_in_seconds":602705` (handled as relative). */
function epochReset(text: string): number | undefined {
  const m = /limit reached\|(\d{10})\b/i.exec(text) ?? /resets?_at[\\"]*\s*[:=]\s*(\d{10})\b/i.exec(text);
  return m ? Number(m[1]) * 1000 : undefined;
}

const unitMs: Record<string, number> = {
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
  h: 3_600_000,
  hr: 3_600_000,
  hrs: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  s: 1000,
  sec: 1000,
  secs: 1000,
  second: 1000,
  seconds: 1000,
};

/** `try again in 5 days 22 hours 11 minutes`, `retry in 23.5s`, `resets in 2s`, `"resets_in_seconds":602705`. */
function relativeReset(text: string, now: number): number | undefined {
  const seconds = /resets?_in_seconds[\\"]*\s*[:=]\s*(\d+(?:\.\d+)?)/i.exec(text);
  if (seconds) {
    return now + Math.round(Number(seconds[1]) * 1000);
  }
  const m = /\b(?:again|retry|resets?|reset|available)\s+in\s+((?:\d+(?:\.\d+)?\s*[a-z]+[\s,]*(?:and\s+)?)+)/i.exec(
    text,
  );
  if (!m) {
    return undefined;
  }
  let total = 0;
  for (const part of m[1].matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/gi)) {
    const unit = unitMs[part[2].toLowerCase()];
    if (unit === undefined) {
      break;
    }
    total += Number(part[1]) * unit;
  }
  return total > 0 ? now + Math.round(total) : undefined;
}

const months = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * `reset at 3pm (America/Santiago)`, `resets 11:20am (Europe/Budapest)`, `try again at 3:05 PM`,
 * `try again at Jul 5th, 2026 8:19 PM`: a wall-clock time in the zone named (the machine's when
 * none is), the next such time after `now` when no date is given.
 */
function clockReset(text: string, now: number): number | undefined {
  const m =
    /\b(?:resets?|reset at|again at)\s+(?:at\s+)?(?:([A-Z][a-z]{2})[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4}),?\s+)?(\d{1,2})(?::(\d{2}))?\s*([ap]\.?m\.?)?(?:\s*\(([A-Za-z_]+(?:\/[A-Za-z_+\-0-9]+)*)\))?/i.exec(
      text,
    );
  if (!m || (m[5] === undefined && m[6] === undefined)) {
    return undefined; // a bare number is no time of day
  }
  let hour = Number(m[4]);
  const minute = Number(m[5] ?? 0);
  const half = m[6]?.replace(/\./g, '').toLowerCase();
  if (hour > 23 || minute > 59 || (half && (hour < 1 || hour > 12))) {
    return undefined;
  }
  if (half === 'pm' && hour < 12) {
    hour += 12;
  } else if (half === 'am' && hour === 12) {
    hour = 0;
  }
  const zone = m[7] && validZone(m[7]) ? m[7] : undefined;
  const today = wallDate(now, zone);
  const month = m[1] ? months.indexOf(m[1].toLowerCase()) : -1;
  const date = month >= 0 ? { y: Number(m[3]), mo: month, d: Number(m[2]) } : today;
  let at = instantOf(date.y, date.mo, date.d, hour, minute, zone);
  if (month < 0) {
    // The next such time: today's, or tomorrow's once today's has passed.
    for (let i = 0; i < 2 && at <= now; i++) {
      at = instantOf(date.y, date.mo, date.d + i + 1, hour, minute, zone);
    }
  }
  return at > now ? at : undefined;
}

function validZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The calendar date at `instant` in `zone` (the machine's when undefined). */
function wallDate(instant: number, zone: string | undefined): { y: number; mo: number; d: number } {
  const p = wallParts(instant, zone);
  return { y: p.y, mo: p.mo, d: p.d };
}

function wallParts(instant: number, zone: string | undefined) {
  if (zone === undefined) {
    const d = new Date(instant);
    return { y: d.getFullYear(), mo: d.getMonth(), d: d.getDate(), h: d.getHours(), mi: d.getMinutes() };
  }
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
  }).formatToParts(new Date(instant));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return { y: get('year'), mo: get('month') - 1, d: get('day'), h: get('hour'), mi: get('minute') };
}

/** The instant a wall-clock time in `zone` names (the machine's zone when undefined). */
function instantOf(y: number, mo: number, d: number, h: number, mi: number, zone: string | undefined): number {
  if (zone === undefined) {
    return new Date(y, mo, d, h, mi).getTime();
  }
  const guess = Date.UTC(y, mo, d, h, mi);
  // The zone's offset at the guess, applied twice to settle across a daylight-saving change.
  let at = guess;
  for (let i = 0; i < 2; i++) {
    const p = wallParts(at, zone);
    at += guess - Date.UTC(p.y, p.mo, p.d, p.h, p.mi);
  }
  return at;
}

function capped(line: string): string {
  return line.length > messageLimit ? `${line.slice(0, messageLimit - 1)}…` : line;
}
