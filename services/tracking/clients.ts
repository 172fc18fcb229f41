import { invalid } from "../../lib/errors.js";

/** Longest client name the service stores. */
export const MAX_CLIENT_NAME = 100;

export type ClientStatus = "active" | "archived" | "both";

export function clientStatus(raw: string): ClientStatus {
  const status = raw === "" ? "active" : raw;
  if (status !== "active" && status !== "archived" && status !== "both") throw invalid("Client status is invalid");
  return status;
}

/** A client's name: trimmed, not empty, at most MAX_CLIENT_NAME characters. */
export function clientName(raw: string): string {
  const name = raw.trim();
  if (!name) throw invalid("Client name cannot be empty");
  if ([...name].length > MAX_CLIENT_NAME) throw invalid(`Client name maximum length is ${MAX_CLIENT_NAME}`);
  return name;
}

/** The body's `wid`, when given, must name the workspace of the path. */
export function checkBodyWorkspace(wid: bigint | undefined, workspaceId: bigint): void {
  if (wid !== undefined && wid !== 0n && wid !== workspaceId) throw invalid("wid does not match the workspace of the path");
}
