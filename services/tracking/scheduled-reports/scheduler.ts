import type { Client } from "@connectrpc/connect";
import type { IdentityService, WorkspaceMember } from "../../../gen/accounts/v1/accounts_pb.js";
import { LeasedWork } from "../../../lib/background.js";
import type { Clock } from "../../../lib/clock.js";
import { isUniqueViolation } from "../../../lib/db.js";
import type { Logger } from "../../../lib/logger.js";
import { MAX_ATTACHMENT_BYTES } from "../../../lib/mailer.js";
import type { SecretBox } from "../../../lib/secret-box.js";
import type { ServiceStorage } from "../../../lib/storage.js";
import { pdfFile } from "../reports/formats/index.js";
import { knownZone, lastEndedPeriod, type Period } from "../reminders/rules.js";
import { runSavedReport } from "../saved-reports/run.js";
import { runReport, type ReportRun } from "../reports/run.js";
import { savedReports, type SavedReportRow } from "../saved-reports/store.js";
import { reportTable } from "../reports/tables.js";
import type { MemberScope, TrackingScope } from "../scope.js";
import { scheduledReportMail } from "./mail.js";
import { scheduledReportSends, scheduledReports, type ScheduledReportRow } from "./store.js";

/** The row of `outbox_lease` that says which replica mails the scheduled reports. */
const LEASE = "scheduled_reports";

export interface ScheduledReportSchedulerOptions {
  /** Milliseconds between passes (periods end at recipients' midnights; a pass a minute is timely enough). */
  pollMs?: number;
  leaseMs?: number;
}

export interface ScheduledReportSchedulerDeps {
  clock: Clock;
  log: Logger;
  /** Opens the saved reports' tokens for the link in the mail. */
  box: SecretBox;
  /** PUBLIC_URL: the base of the link. */
  publicUrl: string;
  /** The report owner's scope (services/tracking/scope.ts). */
  memberScope: MemberScope;
}

/** A report as a PDF, or undefined when it would be too big to mail (the link has it). */
async function pdfOf(table: ReturnType<typeof reportTable>): Promise<Uint8Array | undefined> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const part of pdfFile(table)) {
    size += part.byteLength;
    // Leaving the loop ends the writer (its rows' cursor closes).
    if (size > MAX_ATTACHMENT_BYTES) return undefined;
    parts.push(part);
  }
  return Buffer.concat(parts, size);
}

/**
 * ScheduledReportScheduler mails every schedule's saved report for its latest ended period (a
 * day, a week from the recipient's first day of the week, a calendar month), in each recipient's
 * own time zone, one replica at a time (it holds the `scheduled_reports` lease). The report is
 * run as its owner sees the workspace, outside any transaction; then each recipient's mail is
 * recorded in the outbox in the change that records the period as sent to them, so a period is
 * mailed once and a committed mail is never lost (the mailer sends it, again after a restart).
 */
export class ScheduledReportScheduler extends LeasedWork {
  constructor(
    private readonly storage: ServiceStorage,
    private readonly identity: Client<typeof IdentityService>,
    private readonly deps: ScheduledReportSchedulerDeps,
    options: ScheduledReportSchedulerOptions = {},
  ) {
    super(storage.db, LEASE, deps.clock, deps.log, { pollMs: options.pollMs ?? 60_000, leaseMs: options.leaseMs ?? 5 * 60_000 });
  }

  protected async pass(): Promise<void> {
    const now = this.deps.clock.now();
    const all: ScheduledReportRow[] = (await this.storage.db(scheduledReports.table).orderBy("id")).map((raw: Record<string, unknown>) => scheduledReports.read(raw));
    for (const schedule of all) {
      if (!(await this.stillHeld())) return;
      await this.settle(schedule, now).catch((err) => this.deps.log.warn({ err, scheduledReport: schedule.id }, "scheduled report: pass failed, will retry"));
    }
  }

  private async settle(schedule: ScheduledReportRow, now: Date): Promise<void> {
    const { db } = this.storage;
    const report = await savedReports.get(db, schedule.workspace_id, schedule.saved_report_id);
    if (!report) return;
    // Each recipient's latest ended period in its own zone; one that ended before the schedule was made is not the schedule's.
    const due = (await this.recipients(schedule))
      .map((member) => ({ member, userId: member.userId, period: lastEndedPeriod(schedule.frequency, now, member.timezone, member.beginningOfWeek) }))
      .filter(({ period }) => period.end > schedule.created_at);
    if (due.length === 0) return;
    const sent = new Map<bigint, number>(
      (await scheduledReportSends.query(db, schedule.workspace_id).where({ scheduled_report_id: schedule.id }).select("user_id", "period_start")).map((raw: Record<string, unknown>) => {
        const row = scheduledReportSends.read(raw);
        return [row.user_id, row.period_start.getTime()];
      }),
    );
    const pending = due.filter((d) => (sent.get(d.userId) ?? -Infinity) < d.period.start.getTime());
    if (pending.length === 0) return;
    const owner = await this.deps.memberScope(report.user_id, report.workspace_id);
    if (!owner) {
      // The owner left the workspace: the report has no one to run as (it answers 403 too); nothing is recorded, so it goes out once they are back.
      this.deps.log.debug({ scheduledReport: schedule.id }, "scheduled report: the saved report's owner is no active member");
      return;
    }
    const link = `${this.deps.publicUrl}/reports/api/v3/shared/${this.deps.box.open(report.token_sealed)}`;
    // Recipients in the same zone with the same period get the same report: it runs once for them.
    const made = new Map<string, Promise<{ run: ReportRun; pdf?: Uint8Array }>>();
    for (const { member, userId, period } of pending) {
      const zone = knownZone(member.timezone);
      const key = JSON.stringify([zone, period.firstDay, period.lastDay, member.beginningOfWeek]);
      if (!made.has(key)) made.set(key, this.produce(owner, report, period, zone, member.beginningOfWeek, now));
      const { run, pdf } = await made.get(key)!;
      const message = scheduledReportMail({ member, report, frequency: schedule.frequency, run, period, link, pdf });
      try {
        await this.storage.change(async (trx, _emit, mail) => {
          const raw = await scheduledReportSends.query(trx, schedule.workspace_id).where({ scheduled_report_id: schedule.id, user_id: userId }).forUpdate().first();
          const last = raw ? scheduledReportSends.read(raw) : undefined;
          // Another pass mailed this period (or a later one) first.
          if (last && last.period_start >= period.start) return;
          if (last) await scheduledReportSends.update(trx, last, { period_start: period.start, sent_at: now });
          else await scheduledReportSends.insert(trx, { scheduled_report_id: schedule.id, workspace_id: schedule.workspace_id, user_id: userId, period_start: period.start, sent_at: now });
          await mail(message);
        });
      } catch (err) {
        // Another pass recorded this recipient's first period first.
        if (!isUniqueViolation(err)) throw err;
      }
    }
  }

  /** The report of one period as its owner sees it, in the recipient's zone, with its PDF. */
  private async produce(owner: TrackingScope, report: SavedReportRow, period: Period, zone: string, weekStart: number, now: Date) {
    const run = await runSavedReport(this.storage.db, this.identity, owner, report, {}, { now, period: { firstDay: period.firstDay, lastDay: period.lastDay, zone, weekStart } }, runReport);
    // A PDF that cannot be written leaves the mail with its summary and link.
    const pdf = await pdfOf(reportTable(this.storage.db, run, report.name)).catch((err: unknown) => {
      this.deps.log.warn({ err, savedReport: report.id }, "scheduled report: the PDF was not written");
      return undefined;
    });
    return { run, pdf };
  }

  /** The schedule's active members: named ones and those of its groups that are assigned to the workspace. */
  private async recipients(schedule: ScheduledReportRow): Promise<WorkspaceMember[]> {
    const workspaceId = schedule.workspace_id;
    const [{ members }, { groups }] = await Promise.all([
      this.identity.listWorkspaceMembers({ workspaceId }),
      schedule.group_ids.length ? this.identity.resolveGroups({ workspaceId, groupIds: schedule.group_ids }) : { groups: [] },
    ]);
    const wanted = new Set(schedule.user_ids);
    for (const g of groups) if (g.workspaceIds.includes(workspaceId)) for (const u of g.userIds) wanted.add(u);
    return members.filter((m) => m.active && m.email && wanted.has(m.userId));
  }
}
