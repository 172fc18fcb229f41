import type { OutgoingMail } from "../../../lib/mailer.js";
import type { ExportRow } from "./store.js";

export interface ExportReadyMail {
  to: string;
  name: string;
  job: ExportRow;
  /** PUBLIC_URL and the download path. */
  link: string;
  retentionDays: number;
}

/** The mail that tells the requester their export is ready, with the link to download it. */
export function exportReadyMail({ to, name, job, link, retentionDays }: ExportReadyMail): OutgoingMail {
  const what = job.kind === "workspace" ? `The export of workspace ${job.workspace_id}` : "The export of your data";
  return {
    to,
    subject: job.kind === "workspace" ? `Your workspace export is ready (workspace ${job.workspace_id})` : "Your data export is ready",
    text: [
      `Hi ${name || to},`,
      "",
      `${what} (${job.objects.join(", ")}) is ready to download (signed in, as with the API):`,
      link,
      "",
      `The file is kept for ${retentionDays} ${retentionDays === 1 ? "day" : "days"}.`,
    ].join("\n"),
  };
}
