"use strict";
// Sign up (POST /api/signup also signs in), with the time zone the browser reports.
document.addEventListener("DOMContentLoaded", function () {
  const w = window.workhub;
  const params = new URLSearchParams(location.search);
  const form = document.getElementById("signup");
  if (params.get("email")) form.email.value = params.get("email");
  document.getElementById("login-link").href = "/login" + location.search;

  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  const zones = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  if (!zones.includes("UTC")) zones.unshift("UTC");
  if (!zones.includes(zone)) zones.unshift(zone);
  const select = document.getElementById("timezone");
  zones.forEach(function (z) {
    const option = document.createElement("option");
    option.value = z;
    option.textContent = z;
    option.selected = z === zone;
    select.appendChild(option);
  });

  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    if (!form.reportValidity()) return;
    w.say("signup-outcome", "Creating the account…");
    const body = { email: form.email.value.trim(), password: form.password.value, display_name: form.fullname.value.trim(), timezone: select.value };
    const res = await w.busy(form, function () { return w.api("POST", "/api/signup", body); });
    if (!res.ok) return w.say("signup-outcome", w.failure(res), "error");
    w.say("signup-outcome", "Account created; you are signed in.", "ok");
    location.assign(w.nextPath("/profile"));
  });
});
