import type { OutgoingMail } from "../../../lib/mailer.js";

/** How long a password reset code works. */
export const RESET_CODE_TTL_MS = 3600_000;
/** Reset mails an account gets per hour at most (more requests answer the same and send nothing). */
export const MAX_RESETS_PER_HOUR = 5;

/** The mail with a password reset code; the links are built from PUBLIC_URL, never the request's host. */
export function passwordResetMail(to: string, code: string, publicUrl: string): OutgoingMail {
  const page = `${publicUrl}/reset-password/${code}`;
  const confirm = `${publicUrl}/api/me/password_reset/confirm/${code}`;
  return {
    to,
    subject: "Reset your password",
    text: [
      `Someone (we hope you) asked to reset the password of the account ${to}.`,
      "",
      `Your reset code: ${code}`,
      "It works once, within one hour.",
      "",
      "To set a new password, open this link:",
      `  ${page}`,
      "",
      "Or send it with the code to the API:",
      `  curl -X POST ${confirm} -H 'content-type: application/json' -d '{"password":"<new password>"}'`,
      "",
      "If you did not ask for this, ignore this mail: your password stays as it is.",
    ].join("\n"),
  };
}
