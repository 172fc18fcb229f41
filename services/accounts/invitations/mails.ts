import type { OutgoingMail } from "../../../lib/mailer.js";

/** The invitation mail: who invites to what, and how to accept or decline. */
export function invitationMail(to: string, sender: string, organization: string, url: string, publicUrl: string): OutgoingMail {
  return {
    to,
    subject: `${sender} invited you to ${organization}`,
    text: [
      `${sender} invited you to join the organization ${organization}.`,
      "",
      `To join, sign in with this address (or sign up first: POST ${publicUrl}/api/signup) and accept:`,
      `  POST ${url}`,
      "To decline:",
      `  POST ${url.replace(/\/accept$/, "/reject")}`,
    ].join("\n"),
  };
}

/** The notice to the inviter that the invitation was accepted. */
export function joinedMail(to: string, who: string, organization: string): OutgoingMail {
  return { to, subject: `${who} joined ${organization}`, text: `${who} accepted your invitation and joined the organization ${organization}.` };
}
