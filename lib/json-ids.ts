import type { JsonValue } from "@bufbuild/protobuf";

/**
 * A JSON body that is a plain array of ids (`[1, 2, 3]`: the real API's `POST .../clients/data`,
 * the tags' bulk delete): positive integers below 2^53 (as bigint), repeats dropped (first position kept).
 * Anything else is undefined, so the caller answers its own message; so is a list longer than
 * `max` (`tooMany`).
 */
export function idsOfJson(body: JsonValue | undefined, max: number): { ids: bigint[] } | { invalid: "shape" | "too_many" } {
  if (!Array.isArray(body)) return { invalid: "shape" };
  const ids: bigint[] = [];
  const seen = new Set<bigint>();
  for (const item of body) {
    if (typeof item !== "number" || !Number.isSafeInteger(item) || item < 1) return { invalid: "shape" };
    const id = BigInt(item);
    if (seen.has(id)) continue;
    seen.add(id);
    ids.push(id);
  }
  if (ids.length > max) return { invalid: "too_many" };
  return { ids };
}
