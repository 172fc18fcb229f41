"use strict";
// An invitation from its mailed link (/invitations/{code}): who invites to what; accept or decline
// signed in with the invited address, or sign in / sign up with it first (the address prefilled).
document.addEventListener("DOMContentLoaded", async function () {
  const w = window.workhub;
  const code = decodeURIComponent(location.pathname.split("/")[2] || "");
  const summary = document.getElementById("invitation-summary");
  const reveal = function (id) { document.getElementById(id).hidden = false; };

  const found = await w.api("GET", "/api/v9/invitations/" + encodeURIComponent(code));
  if (found.status === 404 || found.status === 400) {
    summary.textContent = "This invitation is no longer open: it was accepted, declined or withdrawn, or the link is incomplete.";
    return;
  }
  if (!found.ok) return w.say("invitation-outcome", w.failure(found), "error");
  const invitation = found.data;
  summary.textContent = (invitation.sender_name || invitation.sender_email) + " invited " + invitation.email + " to join the organization " + invitation.organization_name + ".";
  const list = document.getElementById("invitation-workspaces");
  (invitation.workspaces || []).forEach(function (ws) {
    const item = document.createElement("li");
    item.textContent = "Workspace " + ws.name;
    list.appendChild(item);
  });
  list.hidden = list.children.length === 0;
  document.querySelectorAll(".invited-email").forEach(function (el) { el.textContent = invitation.email; });

  // Signed in? Only asked when this browser holds a session (the navigation offers signing out).
  const here = location.pathname;
  const me = document.querySelector("header [data-sign-out]") ? await w.api("GET", "/api/v9/me") : { ok: false };
  if (!me.ok) {
    const query = "?email=" + encodeURIComponent(invitation.email) + "&next=" + encodeURIComponent(here);
    document.getElementById("invitation-login").href = "/login" + query;
    document.getElementById("invitation-signup").href = "/signup" + query;
    return reveal("invitation-signin");
  }
  if (me.data.email.toLowerCase() !== invitation.email.toLowerCase()) {
    document.getElementById("signed-in-as").textContent = me.data.email;
    return reveal("invitation-other");
  }
  reveal("invitation-answer");
  const answer = async function (verb, done) {
    const res = await w.busy(document.getElementById("invitation"), function () {
      return w.api("POST", "/api/v9/organizations/invitations/" + encodeURIComponent(code) + "/" + verb);
    });
    if (!res.ok) return w.say("invitation-outcome", w.failure(res), "error");
    document.getElementById("invitation-answer").hidden = true;
    w.say("invitation-outcome", done, "ok");
  };
  document.getElementById("accept").addEventListener("click", function () {
    answer("accept", "You joined " + invitation.organization_name + ".");
  });
  document.getElementById("decline").addEventListener("click", function () {
    answer("reject", "You declined the invitation.");
  });
});
