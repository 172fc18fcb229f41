"use strict";
// Shared by every page: calls to the REST API on this origin (JSON bodies, the session cookie),
// announcing outcomes, signing out, and where to go after signing in.
(function () {
  /** One REST call; the answer's JSON (or text), never a thrown HTTP status. */
  async function api(method, path, body) {
    const init = { method: method, credentials: "same-origin", headers: { accept: "application/json" } };
    if (body !== undefined) {
      init.headers["content-type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let res;
    try {
      res = await fetch(path, init);
    } catch (err) {
      return { ok: false, status: 0, data: "The server cannot be reached; try again." };
    }
    const text = await res.text();
    let data = text;
    try {
      data = text ? JSON.parse(text) : undefined;
    } catch (err) {
      data = text;
    }
    return { ok: res.ok, status: res.status, data: data };
  }

  /** What a failed call says, in words a person reads: the time-tracking API answers a JSON string. */
  function failure(res) {
    if (typeof res.data === "string" && res.data) return res.data;
    if (res.status === 429) return "Too many attempts; wait a little and try again.";
    return "The request failed (" + res.status + ").";
  }

  /** Announces an outcome under a form: errors as alerts, the rest politely. */
  function say(id, text, kind) {
    const el = document.getElementById(id);
    el.setAttribute("role", kind === "error" ? "alert" : "status");
    el.className = "outcome" + (kind ? " " + kind : "");
    el.textContent = text;
  }

  /** The page to go to after signing in or up: a path of this site only, never another origin. */
  function nextPath(fallback) {
    const next = new URLSearchParams(location.search).get("next");
    return next && /^\/(?![\/\\])/.test(next) && !/[\\\s]/.test(next) ? next : fallback;
  }

  /** Runs `work` with the form's buttons disabled, so a second click sends nothing twice. */
  async function busy(form, work) {
    const buttons = Array.from(form.querySelectorAll("button"));
    buttons.forEach(function (b) { b.disabled = true; });
    try {
      return await work();
    } finally {
      buttons.forEach(function (b) { b.disabled = false; });
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-sign-out]").forEach(function (button) {
      button.addEventListener("click", async function () {
        await api("DELETE", "/api/sessions");
        location.assign(button.getAttribute("data-then") === "here" ? location.pathname : "/login");
      });
    });
  });

  window.workhub = { api: api, failure: failure, say: say, nextPath: nextPath, busy: busy };
})();
