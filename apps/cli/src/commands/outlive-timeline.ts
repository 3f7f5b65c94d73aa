// The --outlive demo's timeline: the task's own history merged with what the demo did to the
// server, in time order. Progress is shown as the first and last message of each attempt.

export interface TimelineEntry {
  /** Epoch milliseconds. */
  at: number;
  kind: string;
  attempt?: number;
  text: string;
}

export function printTimeline(entries: TimelineEntry[], t0: number): void {
  const sorted = [...entries].sort((a, b) => a.at - b.at);
  const progress = sorted.filter((e) => e.kind === 'progress');
  const firstOrLast = new Set<TimelineEntry>();
  for (const attempt of new Set(progress.map((e) => e.attempt))) {
    const ofAttempt = progress.filter((e) => e.attempt === attempt);
    firstOrLast.add(ofAttempt[0]).add(ofAttempt.at(-1)!);
  }
  let hidden = 0;
  for (const e of sorted) {
    if (e.kind === 'progress' && !firstOrLast.has(e)) {
      hidden++;
      continue;
    }
    if (hidden) console.log(`  ${' '.repeat(10)}  … ${hidden} more progress message${hidden === 1 ? '' : 's'}`);
    hidden = 0;
    const seconds = `+${((e.at - t0) / 1000).toFixed(2).padStart(6)} s`;
    const attempt = e.attempt ? `attempt ${e.attempt}` : '';
    console.log(`  ${seconds}  ${e.kind.padEnd(9)}  ${attempt.padEnd(9)}  ${e.text}`);
  }
}
