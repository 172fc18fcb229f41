import type { Timestamp } from "@bufbuild/protobuf/wkt";

/**
 * A Timestamp message for a date, built as a literal: answers that list thousands of rows build
 * several per row, and `create()` (or `timestampFromDate`) costs more than the rest of a row.
 * `wholeSeconds` drops the fraction (time entries' start and stop).
 */
export function timestampOf(d: Date, wholeSeconds = false): Timestamp {
  const ms = d.getTime();
  const seconds = Math.floor(ms / 1000);
  return { $typeName: "google.protobuf.Timestamp", seconds: BigInt(seconds), nanos: wholeSeconds ? 0 : (ms - seconds * 1000) * 1_000_000 };
}
