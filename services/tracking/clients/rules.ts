import { clientNameEmpty, clientNameTooLong, clientStatusInvalid, widMismatch } from "../errors.js";
import type { ClientRow } from "./store.js";

/** Longest client name the service stores. */
export const MAX_CLIENT_NAME = 100;

/** The list's `status` (active by default) as a filter on `archived`. */
export function statusFilter(raw: string): Partial<ClientRow> {
  const status = raw === "" ? "active" : raw;
  if (status !== "active" && status !== "archived" && status !== "both") throw clientStatusInvalid();
  return status === "both" ? {} : { archived: status === "archived" };
}

/** A client's name: trimmed, not empty, at most MAX_CLIENT_NAME characters. */
export function clientName(raw: string): string {
  const name = raw.trim();
  if (!name) throw clientNameEmpty();
  if ([...name].length > MAX_CLIENT_NAME) throw clientNameTooLong(MAX_CLIENT_NAME);
  return name;
}

/** The body's `wid`, when given, must name the workspace of the path. */
export function checkBodyWorkspace(wid: bigint | undefined, workspaceId: bigint): void {
  if (wid !== undefined && wid !== 0n && wid !== workspaceId) throw widMismatch();
}
