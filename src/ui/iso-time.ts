// Date#toISOString without V8's time zone: its first call in a process sets up the local zone (an
// /etc/localtime read and ICU's zone data: ~13 page faults, on every hook that stamps a time:
// bench/README.md, floor16), which a stamp in UTC never needs. Plain arithmetic on the time value.

const DAY_MS = 86_400_000;

/** `date` written as toISOString writes it; a time outside years 0-9999 (or invalid) by toISOString itself. */
export function isoTime(date: Date): string {
  const ms = date.getTime();
  // 0000-01-01 and 10000-01-01 in ms since 1970: outside, toISOString's six-digit years (or its RangeError).
  if (!(ms >= -62_167_219_200_000 && ms < 253_402_300_800_000)) return date.toISOString();
  const days = Math.floor(ms / DAY_MS);
  const [year, month, day] = civilFromDays(days);
  const inDay = ms - days * DAY_MS;
  const two = (n: number) => String(n).padStart(2, '0');
  const time = `${two(Math.floor(inDay / 3_600_000))}:${two(Math.floor(inDay / 60_000) % 60)}:${two(Math.floor(inDay / 1000) % 60)}.${String(inDay % 1000).padStart(3, '0')}`;
  return `${String(year).padStart(4, '0')}-${two(month)}-${two(day)}T${time}Z`;
}

/** The proleptic Gregorian date of a day count from 1970-01-01 (H. Hinnant's civil_from_days). */
function civilFromDays(days: number): [number, number, number] {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (month <= 2 ? 1 : 0), month, day];
}
