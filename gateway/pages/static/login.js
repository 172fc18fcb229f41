"use strict";
// Sign in (POST /api/sessions sets the session cookie) and ask for a password reset mail.
document.addEventListener("DOMContentLoaded", function () {
  const w = window.workhub;
  const params = new URLSearchParams(location.search);
  const email = params.get("email");
  if (email) {
    document.getElementById("email").value = email;
    document.getElementById("forgot-email").value = email;
  }
  // Signing up instead keeps the address and where to go next.
  const signup = document.getElementById("signup-link");
  signup.href = "/signup" + location.search;

  const form = document.getElementById("signin");
  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    if (!form.reportValidity()) return;
    w.say("signin-outcome", "Signing in…");
    const res = await w.busy(form, function () {
      return w.api("POST", "/api/sessions", { email: form.email.value.trim(), password: form.password.value });
    });
    if (!res.ok) return w.say("signin-outcome", w.failure(res), "error");
    w.say("signin-outcome", "Signed in.", "ok");
    location.assign(w.nextPath("/profile"));
  });

  const forgot = document.getElementById("forgot");
  forgot.addEventListener("submit", async function (event) {
    event.preventDefault();
    if (!forgot.reportValidity()) return;
    const res = await w.busy(forgot, function () {
      return w.api("POST", "/api/me/password_reset/request", { email: document.getElementById("forgot-email").value.trim() });
    });
    if (!res.ok) return w.say("forgot-outcome", w.failure(res), "error");
    w.say("forgot-outcome", "If an account has this address, a mail with a reset link is on its way.", "ok");
  });
});
