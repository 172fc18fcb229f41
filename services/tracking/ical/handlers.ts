import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { IcalService } from "../../../gen/tracking/v1/ical_pb.js";
import type { ResourceKit } from "../../../lib/resource-kit.js";
import { idBinding, randomToken, readId } from "../../../lib/ids.js";
import { caller } from "../../../lib/identity.js";
import { trackingScope } from "../scope.js";
import { projects, type ProjectRow } from "../projects/store.js";
import { clients } from "../clients/store.js";
import { timeEntries, type TimeEntryRow } from "../time-entries/store.js";
import { calendarNotFound, calendarPaidFeature } from "../errors.js";
import { calendar, CALENDAR_DAYS, icalTokenHash, type CalendarEvent } from "./rules.js";
import { feedByHash, icalFeeds, memberFeedForChange } from "./store.js";

const DAY_MS = 86_400_000;
const CALENDAR_PATH = "/api/v9/ical/workspace_user/";
/** At most this many entries go into one calendar. */
const MAX_EVENTS = 5000;

/** The link's URL on the origin the caller reached (the path alone when the gateway did not say). */
function calendarUrl(ctx: HandlerContext, token: string): string {
  const requestUrl = caller(ctx).requestUrl;
  let origin = "";
  try {
    if (requestUrl) origin = new URL(requestUrl).origin;
  } catch {
    origin = "";
  }
  return `${origin}${CALENDAR_PATH}${token}`;
}

/** The host the events' UIDs name (globally unique ids, RFC 5545 3.8.4.7). */
function uidHost(ctx: HandlerContext): string {
  try {
    return new URL(caller(ctx).requestUrl ?? "").host || "workhub";
  } catch {
    return "workhub";
  }
}

/**
 * Each member's calendar link in a workspace: a random token, of which only a SHA-256 is kept (so
 * the URL is shown when it is made, by reset and by toggle switching it on, and never again). The
 * calendar needs the member still active in the workspace (404 otherwise, as for an unknown or
 * switched-off link) and the workspace premium (403 "Paid feature", as the reference answers).
 */
export function icalHandlers({ storage, clock, identity }: ResourceKit) {
  const { db } = storage;

  return (router: ConnectRouter) =>
    router.service(IcalService, {
      async *getWorkspaceUserCalendar(req, ctx) {
        const feed = req.token ? await feedByHash(db, icalTokenHash(req.token)) : undefined;
        if (!feed || !feed.enabled) throw calendarNotFound();
        const access = await identity.checkWorkspaceAccess({ userId: feed.user_id, workspaceId: feed.workspace_id });
        if (!access.allowed) throw calendarNotFound();
        if (!access.premium) throw calendarPaidFeature();
        const now = clock.now();
        const rows = await timeEntries.query(db, feed.workspace_id)
          .where("user_id", idBinding(feed.user_id))
          .whereNull("server_deleted_at")
          .where("start", ">=", new Date(now.getTime() - CALENDAR_DAYS * DAY_MS))
          .orderBy("start").orderBy("id")
          .limit(MAX_EVENTS);
        const entries: TimeEntryRow[] = rows.map((raw: Record<string, unknown>) => timeEntries.read(raw));
        const projectIds = [...new Set(entries.map((e) => e.project_id).filter((id): id is bigint => id !== null))];
        const projectRows: ProjectRow[] = projectIds.length ? (await projects.query(db, feed.workspace_id).whereIn("id", projectIds.map(idBinding))).map((raw: Record<string, unknown>) => projects.read(raw)) : [];
        const clientIds = [...new Set(projectRows.map((p) => p.client_id).filter((id): id is bigint => id !== null))];
        const clientNames = new Map<bigint, string>(clientIds.length ? (await clients.query(db, feed.workspace_id).whereIn("id", clientIds.map(idBinding))).map((c: { id: unknown; name: string }) => [readId(c.id), c.name]) : []);
        const projectLabel = new Map(projectRows.map((p) => [p.id, p.client_id !== null && clientNames.has(p.client_id) ? `${p.name} (${clientNames.get(p.client_id)})` : p.name]));
        const events: CalendarEvent[] = entries.map((e) => {
          const project = e.project_id === null ? undefined : projectLabel.get(e.project_id);
          return {
            id: e.id,
            start: e.start,
            end: e.stop ?? (e.duration >= 0 ? new Date(e.start.getTime() + e.duration * 1000) : now),
            changed: e.at,
            summary: e.description || project || "(no description)",
            description: project ?? "",
          };
        });
        yield { data: new TextEncoder().encode(calendar(events, now, uidHost(ctx))), fileName: "" };
      },

      async resetIcalToken(_req, ctx) {
        const scope = trackingScope(ctx);
        const token = randomToken();
        const now = clock.now();
        await storage.change(async (trx) => {
          const existing = await memberFeedForChange(trx, scope.workspaceId, scope.userId);
          if (existing) await icalFeeds.update(trx, existing, { token_hash: icalTokenHash(token), enabled: true, at: now });
          else await icalFeeds.insert(trx, { workspace_id: scope.workspaceId, user_id: scope.userId, token_hash: icalTokenHash(token), enabled: true, created_at: now, at: now });
        }, { againOnDuplicate: { attempts: 3, giveUp: calendarNotFound } });
        return { url: calendarUrl(ctx, token) };
      },

      async toggleIcalToken(_req, ctx) {
        const scope = trackingScope(ctx);
        const token = randomToken();
        const now = clock.now();
        const on = await storage.change(async (trx) => {
          const existing = await memberFeedForChange(trx, scope.workspaceId, scope.userId);
          if (!existing) {
            await icalFeeds.insert(trx, { workspace_id: scope.workspaceId, user_id: scope.userId, token_hash: icalTokenHash(token), enabled: true, created_at: now, at: now });
            return true;
          }
          // Switched on again, the link gets a new token: the old one was shown once and is not kept.
          await icalFeeds.update(trx, existing, existing.enabled ? { enabled: false, at: now } : { enabled: true, token_hash: icalTokenHash(token), at: now });
          return !existing.enabled;
        }, { againOnDuplicate: { attempts: 3, giveUp: calendarNotFound } });
        return { url: on ? calendarUrl(ctx, token) : "" };
      },
    });
}
