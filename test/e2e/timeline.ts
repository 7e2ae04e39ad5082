import type { SessionView } from "../../emulator";

/**
 * The most sessions of one account that were starting or running at the same moment, from each session's
 * own timeline (created, then ended or still going). It is computed from what ran, not from the service's
 * counter nor from its refusals, so it sees an overrun whatever let it happen. A session still active
 * counts until now.
 */
export function peakActive(sessions: readonly SessionView[]): number {
  const now = Date.now();
  const events: Array<[number, number]> = [];
  for (const s of sessions) {
    events.push([Date.parse(s.created), +1]);
    events.push([s.endedAt ? Date.parse(s.endedAt) : now, -1]);
  }
  // At the same millisecond an end comes before a start: a slot freed and taken at once is no overlap.
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let active = 0;
  let peak = 0;
  for (const [, d] of events) peak = Math.max(peak, (active += d));
  return peak;
}
