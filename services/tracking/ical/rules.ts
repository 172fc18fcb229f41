import { sha256Hex } from "../../../lib/digest.js";

/** How far back the calendar reaches (the reference: the last 14 days). */
export const CALENDAR_DAYS = 14;

export const icalTokenHash = (token: string) => sha256Hex(token);

/** One time entry as a calendar event. */
export interface CalendarEvent {
  id: bigint;
  start: Date;
  /** The stop, or now for a running entry. */
  end: Date;
  changed: Date;
  summary: string;
  description: string;
}

/*
 * The few lines of RFC 5545 the calendar needs are written here (text escaping, line folding, UTC
 * times) rather than with a calendar library: one event type with four properties does not pay for
 * a dependency (and a change of the lock file every agent of the project shares).
 */

/** A TEXT value: backslash, semicolon, comma and line breaks escaped (RFC 5545 3.3.11). */
export function icalText(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/;/g, "\\;").replace(/,/g, "\\,").replace(/\r\n|\r|\n/g, "\\n");
}

/** A content line folded at 75 octets, never inside a UTF-8 character (RFC 5545 3.1). */
export function foldLine(line: string): string {
  const parts: string[] = [];
  let current = "";
  let octets = 0;
  for (const ch of line) {
    const size = Buffer.byteLength(ch);
    const limit = parts.length === 0 ? 75 : 74;
    if (octets + size > limit) {
      parts.push(current);
      current = "";
      octets = 0;
    }
    current += ch;
    octets += size;
  }
  parts.push(current);
  return parts.join("\r\n ");
}

/** A UTC DATE-TIME: 20250312T080000Z. */
export const icalTime = (at: Date) => at.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");

/** The calendar of the events, CRLF lines as RFC 5545 asks. */
export function calendar(events: CalendarEvent[], now: Date, host: string): string {
  const lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//workhub//time entries//EN", "CALSCALE:GREGORIAN", "METHOD:PUBLISH", "X-WR-CALNAME:Time entries"];
  for (const e of events) {
    lines.push(
      "BEGIN:VEVENT",
      `UID:time-entry-${e.id}@${host}`,
      `DTSTAMP:${icalTime(now)}`,
      `LAST-MODIFIED:${icalTime(e.changed)}`,
      `DTSTART:${icalTime(e.start)}`,
      `DTEND:${icalTime(e.end)}`,
      `SUMMARY:${icalText(e.summary)}`,
    );
    if (e.description) lines.push(`DESCRIPTION:${icalText(e.description)}`);
    lines.push("END:VEVENT");
  }
  lines.push("END:VCALENDAR");
  return lines.map(foldLine).join("\r\n") + "\r\n";
}
