// Pure: a moment written as Date#toISOString writes it, without what toISOString costs a short
// process: V8 sets up its time-zone data on a Date's first breakdown through toISOString (it
// reads /etc/localtime and loads the zone: ~11 page faults on a hook that writes one record;
// bench/README.md, prompt16), though the answer is UTC. The getUTC* methods do not.

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** `date` as toISOString gives it (a RangeError for an invalid date, the ±YYYYYY form outside years 0–9999, from toISOString itself). */
export function isoTime(date: Date): string {
  const year = date.getUTCFullYear();
  if (!(year >= 0 && year <= 9999)) return date.toISOString();
  return `${pad(year, 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}T${pad(date.getUTCHours(), 2)}:${pad(date.getUTCMinutes(), 2)}:${pad(date.getUTCSeconds(), 2)}.${pad(date.getUTCMilliseconds(), 3)}Z`;
}
