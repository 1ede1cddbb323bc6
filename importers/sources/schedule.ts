import { Cron } from 'croner';
import { badInput } from '../../src/errors.js';

const NICKNAMES = new Set(['@hourly', '@daily', '@weekly']);

/** When the schedule first fires, or null if never; croner's search overflows the stack on some impossible dates. */
function firstRun(cron: Cron): Date | null {
  try {
    return cron.nextRun();
  } catch {
    return null;
  }
}

/** Validates a schedule: 5-field cron (minute hour day month weekday, UTC) or @hourly, @daily, @weekly; null is manual. */
export function validateSchedule(value: string | null | undefined, field: string): string | null {
  if (value === undefined || value === null || value.trim() === '') return null;
  const schedule = value.trim().replace(/\s+/g, ' ');
  const hint =
    'use 5 cron fields "minute hour day-of-month month day-of-week" in UTC (e.g. "0 */6 * * *"), or @hourly, @daily, @weekly; leave it out to sync only on request';
  if (schedule.startsWith('@')) {
    if (!NICKNAMES.has(schedule.toLowerCase()))
      throw badInput(field, `"${schedule.slice(0, 40)}" is not a known schedule: ${hint}`);
    return schedule.toLowerCase();
  }
  if (schedule.split(' ').length !== 5)
    throw badInput(field, `"${schedule.slice(0, 100)}" has ${schedule.split(' ').length} fields, not 5: ${hint}`);
  let cron: Cron;
  try {
    cron = new Cron(schedule, { paused: true, timezone: 'UTC' });
  } catch (err) {
    throw badInput(field, `"${schedule.slice(0, 100)}" is not a valid schedule (${(err as Error).message}): ${hint}`);
  }
  // "0 0 31 2 *" parses, but no date has it: the source would never sync and show no next run.
  if (firstRun(cron) === null)
    throw badInput(field, `"${schedule}" never fires (no date has that day of the month in that month): ${hint}`);
  return schedule;
}

/** The first time strictly after `after` that the schedule fires, or null for a manual source. */
export function nextRunAfter(schedule: string | null, after: Date): Date | null {
  if (schedule === null) return null;
  return new Cron(schedule, { paused: true, timezone: 'UTC' }).nextRun(after);
}
