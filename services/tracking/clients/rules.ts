import type { JsonValue } from "@bufbuild/protobuf";
import { idsOfJson } from "../../../lib/json-ids.js";
import { clientIdsInvalid, clientNameEmpty, clientStatusInvalid, tooManyIds, widMismatch } from "../errors.js";
import type { ClientRow } from "./store.js";

/** The list's `status` (active by default) as a filter on `archived`. */
export function statusFilter(raw: string): Partial<ClientRow> {
  const status = raw === "" ? "active" : raw;
  if (status !== "active" && status !== "archived" && status !== "both") throw clientStatusInvalid();
  return status === "both" ? {} : { archived: status === "archived" };
}

/** A client's name: trimmed, not empty (its length is the declared limit of the fields that carry it). */
export function clientName(raw: string): string {
  const name = raw.trim();
  if (!name) throw clientNameEmpty();
  return name;
}

/** The body's `wid`, when given, must name the workspace of the path. */
export function checkBodyWorkspace(wid: bigint | undefined, workspaceId: bigint): void {
  if (wid !== undefined && wid !== 0n && wid !== workspaceId) throw widMismatch();
}

/** Most ids one `POST .../clients/data` names. */
export const MAX_CLIENT_DATA_IDS = 1000;

/** The ids of a `POST .../clients/data` body: a JSON array of client ids. */
export function clientIdsOf(body: JsonValue | undefined): bigint[] {
  const read = idsOfJson(body, MAX_CLIENT_DATA_IDS);
  if ("ids" in read) return read.ids;
  throw read.invalid === "too_many" ? tooManyIds("client_ids", MAX_CLIENT_DATA_IDS) : clientIdsInvalid();
}
