import type { JsonValue } from "@bufbuild/protobuf";
import { invitationActionInvalid, sharingBodyInvalid } from "../errors.js";

/** How far back the invitations of shared entries are looked for. */
export const INVITATION_DAYS = 90;
/** The most entries one sharing question names. */
export const MAX_SHARING_ENTRIES = 1000;

export type InvitationAnswer = "accepted" | "rejected";

export function invitationAnswer(action: string): InvitationAnswer {
  const value = action.trim().toLowerCase();
  if (value === "accept") return "accepted";
  if (value === "reject") return "rejected";
  throw invitationActionInvalid();
}

/** The body of POST /me/time_entries_shared_with: an array of {time_entry_id, workspace_id}. */
export function sharingQuestions(body: JsonValue | undefined): { timeEntryId: bigint; workspaceId: bigint }[] {
  if (body === undefined || body === null) return [];
  if (!Array.isArray(body) || body.length > MAX_SHARING_ENTRIES) throw sharingBodyInvalid();
  return body.map((item) => {
    if (typeof item !== "object" || item === null || Array.isArray(item)) throw sharingBodyInvalid();
    const { time_entry_id: entry, workspace_id: workspace } = item;
    const id = (v: JsonValue | undefined) => typeof v === "number" && Number.isSafeInteger(v) && v > 0;
    if (!id(entry) || !id(workspace)) throw sharingBodyInvalid();
    return { timeEntryId: BigInt(entry as number), workspaceId: BigInt(workspace as number) };
  });
}
