/**
 * The clock of a running agent's row: seconds in its first minute, then minutes, so that its text
 * (and with it the row) changes once a second for a minute and then once a minute. Plain functions:
 * the Agents view schedules its refreshes from them.
 */
export function runningClock(elapsedMs: number): string {
  const total = Math.max(0, Math.floor(elapsedMs / 1000));
  if (total < 60) {
    return `${total}s`;
  }
  const minutes = Math.floor(total / 60);
  const hours = Math.floor(minutes / 60);
  return hours > 0 ? `${hours}h ${String(minutes % 60).padStart(2, '0')}m` : `${minutes}m`;
}

/** Milliseconds from `elapsedMs` until runningClock's text changes (always more than 0). */
export function untilClockChanges(elapsedMs: number): number {
  const elapsed = Math.max(0, elapsedMs);
  const step = elapsed < 60_000 ? 1000 : 60_000;
  return step - (elapsed % step);
}
