import type { OutgoingMail } from "../../../lib/mailer.js";

/** The invitation mail: who invites to what, and the invitation's page (`url`), where it is accepted or declined. */
export function invitationMail(to: string, sender: string, organization: string, url: string, publicUrl: string): OutgoingMail {
  return {
    to,
    subject: `${sender} invited you to ${organization}`,
    text: [
      `${sender} invited you to join the organization ${organization}.`,
      "",
      "To accept or decline, open this link (you sign in with this address, or create an account for it, there):",
      `  ${url}`,
      "",
      `With the API instead: sign in with this address (or sign up: POST ${publicUrl}/api/signup), then POST`,
      `${publicUrl}/api/v9/organizations/invitations/<the code at the end of the link>/accept (or /reject).`,
    ].join("\n"),
  };
}

/** The notice to the inviter that the invitation was accepted. */
export function joinedMail(to: string, who: string, organization: string): OutgoingMail {
  return { to, subject: `${who} joined ${organization}`, text: `${who} accepted your invitation and joined the organization ${organization}.` };
}
