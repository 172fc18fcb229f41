"use strict";
// The signed-in person's profile: their account, the API token (hidden until revealed, copy, reset),
// a password change and closing the account behind a typed confirmation.
document.addEventListener("DOMContentLoaded", async function () {
  const w = window.workhub;
  const token = document.getElementById("api-token");
  const toggle = document.getElementById("token-toggle");
  let email = "";

  function show(me, workspaces) {
    email = me.email;
    document.getElementById("me-name").textContent = me.fullname || "(no name)";
    document.getElementById("me-email").textContent = me.email;
    document.getElementById("me-timezone").textContent = me.timezone;
    const workspace = workspaces.find(function (ws) { return ws.id === me.default_workspace_id; });
    document.getElementById("me-workspace").textContent = workspace ? workspace.name : "(none)";
    token.value = me.api_token || "";
  }

  const me = await w.api("GET", "/api/v9/me");
  if (me.status === 403) return location.assign("/login?next=%2Fprofile");
  if (!me.ok) return w.say("token-outcome", w.failure(me), "error");
  const workspaces = await w.api("GET", "/api/v9/me/workspaces");
  show(me.data, workspaces.ok ? workspaces.data : []);

  toggle.addEventListener("click", function () {
    const hidden = token.type === "password";
    token.type = hidden ? "text" : "password";
    toggle.textContent = hidden ? "Hide" : "Show";
    toggle.setAttribute("aria-pressed", String(hidden));
  });

  document.getElementById("token-copy").addEventListener("click", async function () {
    try {
      await navigator.clipboard.writeText(token.value);
      w.say("token-outcome", "The token is copied.", "ok");
    } catch (err) {
      // Without clipboard access (an insecure origin, a refused permission): select it for the person to copy.
      token.type = "text";
      token.select();
      w.say("token-outcome", "Copying is not allowed here: the token is selected, copy it with the keyboard.");
    }
  });

  document.getElementById("token-reset").addEventListener("click", async function () {
    const res = await w.api("POST", "/api/v9/me/reset_token");
    if (!res.ok) return w.say("token-outcome", w.failure(res), "error");
    token.value = res.data;
    w.say("token-outcome", "A new token replaced the old one, which no longer works.", "ok");
  });

  const passwordForm = document.getElementById("password-form");
  passwordForm.addEventListener("submit", async function (event) {
    event.preventDefault();
    if (!passwordForm.reportValidity()) return;
    const next = document.getElementById("new-password").value;
    if (next !== document.getElementById("repeat-password").value) return w.say("password-outcome", "The two new passwords differ.", "error");
    const res = await w.busy(passwordForm, function () {
      return w.api("PUT", "/api/v9/me", { current_password: document.getElementById("current-password").value, password: next });
    });
    if (!res.ok) return w.say("password-outcome", w.failure(res), "error");
    passwordForm.reset();
    w.say("password-outcome", "Your password is changed; your other sessions have ended.", "ok");
  });

  const closeForm = document.getElementById("close-form");
  const confirm = document.getElementById("close-confirm");
  const closeButton = document.getElementById("close-submit");
  confirm.addEventListener("input", function () {
    closeButton.disabled = confirm.value.trim().toLowerCase() !== email.toLowerCase();
  });
  closeForm.addEventListener("submit", async function (event) {
    event.preventDefault();
    if (confirm.value.trim().toLowerCase() !== email.toLowerCase()) return w.say("close-outcome", "Type your e-mail address exactly to confirm.", "error");
    const res = await w.busy(closeForm, function () { return w.api("POST", "/api/me/close_account/track"); });
    if (!res.ok) return w.say("close-outcome", w.failure(res), "error");
    location.assign("/");
  });
});
