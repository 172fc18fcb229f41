import { create } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { WebTimerTimeEntrySchema, type WebTimerTimeEntry } from "../../../gen/tracking/v1/me_pb.js";
import type { TimeEntry } from "../../../gen/tracking/v1/time_entries_pb.js";

/**
 * An entry as the web timer answers it: the v9 entry's fields, then its own: the seconds tracked
 * (a running entry's up to `now`), start and stop again as `utc_start`/`utc_stop`, the last change
 * as `updated_at`.
 */
export function webTimerEntry(entry: TimeEntry, now: Date): WebTimerTimeEntry {
  const start = entry.start ? timestampDate(entry.start) : now;
  const running = entry.stop === undefined;
  // The v9 entry's fields by name (its meta fields, which the web timer has not, are left out by create).
  const { $typeName: _, ...fields } = entry;
  return create(WebTimerTimeEntrySchema, {
    ...fields,
    durationInSeconds: running ? BigInt(Math.max(0, Math.floor((now.getTime() - start.getTime()) / 1000))) : entry.duration,
    utcStart: entry.start,
    utcStop: entry.stop,
    updatedAt: entry.at ?? timestampFromDate(now),
  });
}
