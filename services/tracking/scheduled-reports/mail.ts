import type { WorkspaceMember } from "../../../gen/accounts/v1/accounts_pb.js";
import type { OutgoingMail } from "../../../lib/mailer.js";
import { hoursAndMinutes, knownZone, MONTHLY, type Period } from "../reminders/rules.js";
import { localTimeText } from "../reports/rules.js";
import { fileName } from "../reports/tables.js";
import type { ReportRun } from "../reports/run.js";
import type { SavedReportRow } from "../saved-reports/store.js";

/** The most lines of the text summary; the PDF (or the link) has the rest. */
const SUMMARY_LINES = 20;

const SPAN = { 1: "daily", 7: "weekly", [MONTHLY]: "monthly" } as Record<number, string>;

/** A report's lines in a few words each: groups (summary), rows (weekly), entries (detailed). */
function summaryLines(run: ReportRun): string[] {
  const { ctx } = run;
  const lines: string[] = [];
  if (run.summary) {
    for (const g of run.summary.groups) lines.push(`${g.name ?? "(none)"}: ${hoursAndMinutes(g.seconds)}`);
  } else if (run.weekly) {
    for (const r of run.weekly) lines.push(`${r.userName}, ${r.projectName ?? "(no project)"}: ${hoursAndMinutes(r.seconds.reduce((a, b) => a + b, 0))}`);
  } else if (run.detailed) {
    for (const r of run.detailed.page.rows) {
      const seconds = r.entries.reduce((a, e) => a + e.seconds, 0);
      const day = localTimeText(r.entries[0].start, ctx.zone).slice(0, 10);
      lines.push(`${day} ${r.names.username}, ${r.names.projectName ?? "(no project)"}, ${r.description || "(no description)"}: ${hoursAndMinutes(seconds)}`);
    }
  }
  if (lines.length <= SUMMARY_LINES) return lines;
  return [...lines.slice(0, SUMMARY_LINES), `... and ${lines.length - SUMMARY_LINES} more`];
}

export interface ScheduledMail {
  member: WorkspaceMember;
  report: SavedReportRow;
  frequency: number;
  run: ReportRun;
  period: Period;
  /** Where the report runs: PUBLIC_URL/reports/api/v3/shared/{token}. */
  link: string;
  /** The report as a PDF, when it was written (and small enough to mail). */
  pdf?: Uint8Array;
}

/** The mail of one scheduled report to one recipient: the totals, a short summary, the link, the PDF. */
export function scheduledReportMail({ member, report, frequency, run, period, link, pdf }: ScheduledMail): OutgoingMail {
  const { ctx, totals } = run;
  const days = period.firstDay === period.lastDay ? period.firstDay : `${period.firstDay} to ${period.lastDay}`;
  const amount = ctx.amounts ? ` (billable ${(totals.amountInCents / 100).toFixed(2)} ${ctx.currency})` : "";
  const lines = summaryLines(run);
  return {
    to: member.email,
    subject: `${report.name}: ${run.kind} report, ${days}`.replace(/[\r\n]+/g, " ").slice(0, 300),
    text: [
      `Hi ${member.fullname || member.email},`,
      "",
      `the ${SPAN[frequency] ?? ""} ${run.kind} report "${report.name}" of workspace ${report.workspace_id} for ${days} (${knownZone(member.timezone)}):`,
      "",
      `Total: ${hoursAndMinutes(totals.seconds)}${amount}`,
      ...(lines.length ? ["", ...lines] : []),
      "",
      pdf ? "The whole report is attached as a PDF." : "The whole report is at the link below.",
      `The report (JSON; POST to it): ${link}`,
      `As a PDF (POST): ${link}/pdf`,
      report.public ? "" : "It is private: it answers its owner and the workspace's admins.",
    ]
      .join("\n")
      .trimEnd(),
    attachments: pdf ? [{ filename: fileName(run, "pdf"), contentType: "application/pdf", content: pdf }] : undefined,
  };
}
