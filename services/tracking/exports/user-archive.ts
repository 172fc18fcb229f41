import type { JsonValue } from "@bufbuild/protobuf";
import { AccountService, GetMeResponseSchema } from "../../../gen/accounts/v1/accounts_pb.js";
import { GetPreferencesResponseSchema, PreferenceService } from "../../../gen/accounts/v1/preferences_pb.js";
import type { Knex } from "../../../lib/db.js";
import type { Directory } from "../../../lib/directory.js";
import * as layout from "../portability/layout.js";
import { answerBody, asUser } from "./answers.js";
import { jsonEntry, type ArchiveEntry } from "./files.js";
import type { UserObject } from "./rules.js";
import { entriesOfYear, entryYears, usersEntries } from "./time-entries.js";

/**
 * The entries of a user's own export: `profile` is their profile (GET /api/v9/me, asked of the
 * accounts service as them, without the API token: a file kept for days is no place for a
 * credential) and preferences (GET /api/v9/me/preferences); `timeline` is their time entries in
 * every workspace, JSON per UTC year (the real service's "timeline" is its desktop activity
 * recording, which is not kept here: what a user tracked is their timeline here).
 */
export async function userArchive(db: Knex, directory: Directory, userId: bigint, objects: readonly UserObject[], checkpoint: () => Promise<void>): Promise<ArchiveEntry[]> {
  const as = asUser(userId);
  const entries: ArchiveEntry[] = [];
  const add = (name: string, value: JsonValue) => entries.push(jsonEntry(name, value));
  if (objects.includes("profile")) {
    const me = await directory.client("accounts", AccountService).getMe({}, as);
    if (me.user) me.user.apiToken = undefined;
    add(layout.PROFILE_FILE, answerBody(GetMeResponseSchema, me, "user"));
    add(layout.PREFERENCES_FILE, answerBody(GetPreferencesResponseSchema, await directory.client("accounts", PreferenceService).getPreferences({}, as), "preferences"));
  }
  if (objects.includes("timeline")) {
    const source = usersEntries(db, userId);
    for (const year of await entryYears(source)) entries.push({ name: layout.timeEntriesFile(year), content: () => entriesOfYear(db, source, year, checkpoint) });
  }
  return entries;
}
