import type { Client } from "@connectrpc/connect";
import type { IdentityService, WorkspaceMember } from "../../../gen/accounts/v1/accounts_pb.js";
import { LeasedWork } from "../../../lib/background.js";
import type { Clock } from "../../../lib/clock.js";
import { isUniqueViolation } from "../../../lib/db.js";
import { idBinding } from "../../../lib/ids.js";
import type { Logger } from "../../../lib/logger.js";
import type { OutgoingMail } from "../../../lib/mailer.js";
import type { ServiceStorage } from "../../../lib/storage.js";
import { timeEntries, type TimeEntryRow } from "../time-entries/store.js";
import { hoursAndMinutes, knownZone, lastEndedPeriod, trackedSeconds, type Period } from "./rules.js";
import { reminderChecks, reminders, type ReminderRow } from "./store.js";

const checkKey = (userId: bigint, periodStart: Date) => `${userId}:${periodStart.getTime()}`;

/** The row of `outbox_lease` that says which replica runs the reminders. */
const LEASE = "track_reminders";

export interface ReminderSchedulerOptions {
  /** Milliseconds between passes (periods end at members' midnights; a pass a minute is timely enough). */
  pollMs?: number;
  leaseMs?: number;
}

/** The mail a member gets who tracked less than the reminder's threshold in its period. */
export function reminderMail(member: WorkspaceMember, reminder: ReminderRow, period: Period, tracked: number): OutgoingMail {
  const span = reminder.frequency === 1 ? "yesterday" : "last week";
  const days = period.firstDay === period.lastDay ? period.firstDay : `${period.firstDay} to ${period.lastDay}`;
  return {
    to: member.email,
    subject: `Reminder: you tracked ${hoursAndMinutes(tracked)} ${span}`,
    text: [
      `Hi ${member.fullname || member.email},`,
      "",
      `you tracked ${hoursAndMinutes(tracked)} ${span} (${days}, ${knownZone(member.timezone)}) in workspace ${reminder.workspace_id},`,
      `less than the ${reminder.threshold} hours your workspace admin asks for. Please track your time.`,
    ].join("\n"),
  };
}

/**
 * ReminderScheduler settles every reminder's latest ended period, one replica at a time (it
 * holds the `track_reminders` lease): each targeted active member (named, or in a named group
 * assigned to the workspace) who tracked less than the threshold in its period (in its own time
 * zone) is mailed, in the change that records the check, so each reminder, user and period is
 * settled once.
 */
export class ReminderScheduler extends LeasedWork {
  constructor(
    private readonly storage: ServiceStorage,
    private readonly identity: Client<typeof IdentityService>,
    private readonly deps: { clock: Clock; log: Logger },
    options: ReminderSchedulerOptions = {},
  ) {
    super(storage.db, LEASE, deps.clock, deps.log, { pollMs: options.pollMs ?? 60_000, leaseMs: options.leaseMs ?? 5 * 60_000 });
  }

  protected async pass(): Promise<void> {
    const now = this.deps.clock.now();
    const all: ReminderRow[] = (await this.storage.db(reminders.table).orderBy("id")).map((raw: Record<string, unknown>) => reminders.read(raw));
    for (const reminder of all) {
      if (!(await this.stillHeld())) return;
      await this.settle(reminder, now).catch((err) => this.deps.log.warn({ err, reminder: reminder.id }, "track reminder: pass failed, will retry"));
    }
  }

  private async settle(reminder: ReminderRow, now: Date): Promise<void> {
    // Each member's latest ended period in its own zone; one that ended before the reminder was made is not the reminder's.
    const due = (await this.targets(reminder))
      .map((member) => ({ member, userId: member.userId, period: lastEndedPeriod(reminder.frequency, now, member.timezone, member.beginningOfWeek) }))
      .filter(({ period }) => period.end > reminder.created_at);
    if (due.length === 0) return;
    const { db } = this.storage;
    const since = new Date(Math.min(...due.map((d) => d.period.start.getTime())));
    const until = new Date(Math.max(...due.map((d) => d.period.end.getTime())));
    const settled = new Set(
      (await reminderChecks.query(db, reminder.workspace_id).where({ reminder_id: reminder.id }).where("period_start", ">=", since).select("user_id", "period_start")).map(
        (raw: Record<string, unknown>) => {
          const check = reminderChecks.read(raw);
          return checkKey(check.user_id, check.period_start);
        },
      ),
    );
    const pending = due.filter((d) => !settled.has(checkKey(d.userId, d.period.start)));
    if (pending.length === 0) return;
    const spans: TimeEntryRow[] = (
      await timeEntries
        .query(db, reminder.workspace_id)
        .whereIn("user_id", pending.map((d) => idBinding(d.userId)))
        .whereNull("server_deleted_at")
        .where("start", "<", until)
        .andWhere((q) => q.whereNull("stop").orWhere("stop", ">", since))
        .select("user_id", "start", "stop")
    ).map((raw: Record<string, unknown>) => timeEntries.read(raw));
    for (const { member, userId, period } of pending) {
      const seconds = trackedSeconds(spans.filter((e) => e.user_id === userId), period, now);
      const remind = seconds < reminder.threshold * 3600;
      try {
        await this.storage.change(async (trx, _emit, mail) => {
          await reminderChecks.insert(trx, { reminder_id: reminder.id, workspace_id: reminder.workspace_id, user_id: userId, period_start: period.start, tracked_seconds: seconds, mailed: remind, checked_at: now });
          if (remind) await mail(reminderMail(member, reminder, period, seconds));
        });
      } catch (err) {
        // Another pass settled it first.
        if (!isUniqueViolation(err)) throw err;
      }
    }
  }

  /** The reminder's active members: named ones and those of its groups that are assigned to the workspace. */
  private async targets(reminder: ReminderRow): Promise<WorkspaceMember[]> {
    const workspaceId = reminder.workspace_id;
    const [{ members }, { groups }] = await Promise.all([
      this.identity.listWorkspaceMembers({ workspaceId }),
      reminder.group_ids.length ? this.identity.resolveGroups({ workspaceId, groupIds: reminder.group_ids }) : { groups: [] },
    ]);
    const wanted = new Set(reminder.user_ids);
    for (const g of groups) if (g.workspaceIds.includes(workspaceId)) for (const u of g.userIds) wanted.add(u);
    return members.filter((m) => m.active && wanted.has(m.userId));
  }
}
