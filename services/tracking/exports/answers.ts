import type { DescMessage, JsonValue, MessageShape } from "@bufbuild/protobuf";
import type { CallOptions } from "@connectrpc/connect";
import { HEADER } from "../../../lib/identity.js";
import { encodeMessage, trackingTimestamp } from "../../../lib/rest-json.js";

/**
 * An export writes the API's own answers: it calls the RPCs behind the v9 routes as the requester
 * (so it sees exactly what they may see, refused where they are refused) and writes each answer
 * as the gateway would (the REST JSON codec), so a file compares equal with the API's answer.
 */

/** Call options that make the call the requester's, as the gateway makes a REST request its caller's. */
export const asUser = (userId: bigint): CallOptions => ({ headers: { [HEADER.userId]: String(userId) } });

/** A message as the time-tracking API answers it. */
export const restJson = <S extends DescMessage>(schema: S, message: MessageShape<S>): JsonValue =>
  encodeMessage(schema, message as unknown as Record<string, unknown>, trackingTimestamp);

/** The field of an answer that a route answers as its body (`response_body`). */
export function answerBody<S extends DescMessage>(schema: S, message: MessageShape<S>, field: string): JsonValue {
  return (restJson(schema, message) as Record<string, JsonValue>)[field] ?? null;
}

/** Every page of a paged list (`per_page` at most 200 on every v9 list), read until a short page. */
export async function allPages<T>(page: (page: number, perPage: number) => Promise<T[]>): Promise<T[]> {
  const PER_PAGE = 200;
  const out: T[] = [];
  for (let n = 1; ; n++) {
    const items = await page(n, PER_PAGE);
    out.push(...items);
    if (items.length < PER_PAGE) return out;
  }
}
