"use strict";
// Sets a new password with the code of the mailed link (/reset-password/{code}); a used or expired code says so.
document.addEventListener("DOMContentLoaded", function () {
  const w = window.workhub;
  const code = decodeURIComponent(location.pathname.split("/")[2] || "");
  const form = document.getElementById("reset");
  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    if (!form.reportValidity()) return;
    if (form.password.value !== form.repeat.value) return w.say("reset-outcome", "The two passwords differ.", "error");
    const res = await w.busy(form, function () {
      return w.api("POST", "/api/me/password_reset/confirm/" + encodeURIComponent(code), { password: form.password.value });
    });
    if (res.status === 400 && res.data === "Invalid or expired reset code") {
      return w.say("reset-outcome", "This link was already used or has expired. Ask for a new one on the sign-in page.", "error");
    }
    if (!res.ok) return w.say("reset-outcome", w.failure(res), "error");
    form.reset();
    // Done: the fields go, the outcome stays (with the link onwards).
    form.querySelectorAll(".field, button").forEach(function (el) { el.hidden = true; });
    const done = document.getElementById("reset-outcome");
    w.say("reset-outcome", "Your password is set and you are signed in. ", "ok");
    const link = document.createElement("a");
    link.href = "/profile";
    link.textContent = "Go to your profile";
    done.appendChild(link);
  });
});
