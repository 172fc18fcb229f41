/**
 * The pages' HTML: a layout and one body per page. Nothing a request sends is written into a
 * page (codes and parameters are read by the page's script from its own URL), so the only values
 * written here are the installation's own, escaped all the same.
 */

export interface PageContext {
  publicUrl: string;
  version: string;
  /** The request carries a session cookie (maybe expired): the navigation offers signing out. */
  session: boolean;
}

export interface Page {
  title: string;
  /** The page's script under /assets/ (every page also loads common.js). */
  script: string;
  /** Stylesheets before the installation's own (the API reference's renderer). */
  styles?: string[];
  /** Scripts before the page's own (the renderer's bundle). */
  scripts?: string[];
  body(ctx: PageContext): string;
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function nav(ctx: PageContext): string {
  const account = ctx.session
    ? `<a href="/profile">Profile</a><button type="button" class="link" data-sign-out>Sign out</button>`
    : `<a href="/login">Sign in</a><a href="/signup">Sign up</a>`;
  return `<nav aria-label="Main"><a href="/docs">API reference</a>${account}</nav>`;
}

export function layout(page: Page, ctx: PageContext): string {
  const styles = [...(page.styles ?? []), "/assets/app.css"].map((href) => `<link rel="stylesheet" href="${href}">`).join("");
  const scripts = [...(page.scripts ?? []), "/assets/common.js", `/assets/${page.script}`].map((src) => `<script src="${src}" defer></script>`).join("");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)} · workhub</title>
<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
${styles}
${scripts}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top"><a class="brand" href="/">workhub</a>${nav(ctx)}</header>
<main id="main">
${page.body(ctx)}
</main>
<footer><p>workhub ${escapeHtml(ctx.version)} · <a href="/openapi.json">OpenAPI document</a></p></footer>
</body>
</html>
`;
}

/** A form field: label, input, and the hint the input is described by. */
function field(id: string, label: string, attrs: string, hint?: string): string {
  const described = hint ? ` aria-describedby="${id}-hint"` : "";
  return `<div class="field"><label for="${id}">${label}</label><input id="${id}" name="${id}" ${attrs}${described}>${hint ? `<p class="hint" id="${id}-hint">${hint}</p>` : ""}</div>`;
}

/** Where a form's outcome is announced: errors as alerts, the rest politely. */
const outcome = (id: string) => `<p class="outcome" id="${id}" role="status" aria-live="polite"></p>`;

export const PAGES: Record<string, Page> = {
  "/": {
    title: "Home",
    script: "home.js",
    body: (ctx) => `<h1>workhub</h1>
<p>This installation at <code>${escapeHtml(ctx.publicUrl)}</code> serves the <strong>hiring export API</strong> (<code>/api/v2</code>),
the <strong>time-tracking API</strong> (<code>/api/v9</code>) with its <strong>Reports API v3</strong>, and <strong>webhooks</strong>.</p>
<ul class="links">
<li><a href="/login">Sign in</a> or <a href="/signup">create an account</a>: your profile shows your API token.</li>
<li><a href="/docs">API reference</a>, rendered from the <a href="/openapi.json">OpenAPI document</a>.</li>
<li><a href="/healthz">Health</a> of this gateway.</li>
</ul>
<p>Version <span id="version">${escapeHtml(ctx.version)}</span>.</p>`,
  },
  "/login": {
    title: "Sign in",
    script: "login.js",
    body: () => `<h1>Sign in</h1>
<form id="signin" class="card">
${field("email", "E-mail", `type="email" autocomplete="username" required`)}
${field("password", "Password", `type="password" autocomplete="current-password" required`)}
<button type="submit">Sign in</button>
${outcome("signin-outcome")}
</form>
<p>No account yet? <a id="signup-link" href="/signup">Create one</a>.</p>
<section class="card" aria-labelledby="forgot-title">
<h2 id="forgot-title">Forgot your password?</h2>
<form id="forgot">
${field("forgot-email", "E-mail", `type="email" autocomplete="email" required`, "We mail a link that sets a new password; it works once, within one hour.")}
<button type="submit">Mail me a reset link</button>
${outcome("forgot-outcome")}
</form>
</section>`,
  },
  "/signup": {
    title: "Sign up",
    script: "signup.js",
    body: () => `<h1>Create an account</h1>
<form id="signup" class="card">
${field("fullname", "Name", `type="text" autocomplete="name" maxlength="255"`)}
${field("email", "E-mail", `type="email" autocomplete="email" required maxlength="254"`)}
${field("password", "Password", `type="password" autocomplete="new-password" required minlength="6" maxlength="128"`, "6 to 128 characters.")}
<div class="field"><label for="timezone">Time zone</label><select id="timezone" name="timezone" aria-describedby="timezone-hint"></select><p class="hint" id="timezone-hint">Taken from your browser; change it if it is wrong.</p></div>
<button type="submit">Create account</button>
${outcome("signup-outcome")}
</form>
<p>Already have an account? <a id="login-link" href="/login">Sign in</a>.</p>`,
  },
  "/profile": {
    title: "Profile",
    script: "profile.js",
    body: () => `<h1>Profile</h1>
<section class="card" aria-labelledby="account-title">
<h2 id="account-title">Account</h2>
<dl class="facts">
<dt>Name</dt><dd id="me-name">…</dd>
<dt>E-mail</dt><dd id="me-email">…</dd>
<dt>Time zone</dt><dd id="me-timezone">…</dd>
<dt>Default workspace</dt><dd id="me-workspace">…</dd>
</dl>
</section>
<section class="card" aria-labelledby="token-title">
<h2 id="token-title">API token</h2>
<p>Use it as the user name of HTTP Basic, with the password <code>api_token</code>.</p>
<div class="field"><label for="api-token">Your API token</label><input id="api-token" type="password" readonly autocomplete="off" spellcheck="false"></div>
<div class="actions">
<button type="button" id="token-toggle" aria-controls="api-token" aria-pressed="false">Show</button>
<button type="button" id="token-copy">Copy</button>
<button type="button" id="token-reset" class="secondary">Reset token</button>
</div>
${outcome("token-outcome")}
</section>
<section class="card" aria-labelledby="password-title">
<h2 id="password-title">Change password</h2>
<form id="password-form">
${field("current-password", "Current password", `type="password" autocomplete="current-password" required`)}
${field("new-password", "New password", `type="password" autocomplete="new-password" required minlength="6" maxlength="128"`, "6 to 128 characters. Your other sessions end.")}
${field("repeat-password", "Repeat the new password", `type="password" autocomplete="new-password" required`)}
<button type="submit">Change password</button>
${outcome("password-outcome")}
</form>
</section>
<section class="card danger" aria-labelledby="close-title">
<h2 id="close-title">Close account</h2>
<p>Your sessions, API token and memberships end; organizations you own alone are deleted with their workspaces. This cannot be undone.</p>
<form id="close-form">
${field("close-confirm", "Type your e-mail address to confirm", `type="email" autocomplete="off" required`)}
<button type="submit" class="danger" id="close-submit" disabled>Close my account</button>
${outcome("close-outcome")}
</form>
</section>`,
  },
  "/invitations/:code": {
    title: "Invitation",
    script: "invitation.js",
    body: () => `<h1>Invitation</h1>
<section class="card" id="invitation" aria-live="polite">
<p id="invitation-summary">Looking up the invitation…</p>
<ul id="invitation-workspaces" class="links" hidden></ul>
<div id="invitation-signin" hidden>
<p>Accept or decline it signed in as <strong class="invited-email"></strong>:</p>
<p class="actions"><a class="button" id="invitation-login" href="/login">Sign in</a><a class="button secondary" id="invitation-signup" href="/signup">Create an account</a></p>
</div>
<div id="invitation-other" hidden>
<p>You are signed in as <strong id="signed-in-as"></strong>; this invitation is for <strong class="invited-email"></strong>.</p>
<p class="actions"><button type="button" data-sign-out data-then="here">Sign out</button></p>
</div>
<div id="invitation-answer" hidden>
<p class="actions"><button type="button" id="accept">Accept</button><button type="button" id="decline" class="secondary">Decline</button></p>
</div>
${outcome("invitation-outcome")}
</section>`,
  },
  "/reset-password/:code": {
    title: "Set a new password",
    script: "reset.js",
    body: () => `<h1>Set a new password</h1>
<form id="reset" class="card">
${field("password", "New password", `type="password" autocomplete="new-password" required minlength="6" maxlength="128"`, "6 to 128 characters. Every session of the account ends; this browser is signed in.")}
${field("repeat", "Repeat the new password", `type="password" autocomplete="new-password" required`)}
<button type="submit">Set password</button>
${outcome("reset-outcome")}
</form>`,
  },
  "/docs": {
    title: "API reference",
    script: "docs.js",
    styles: ["/assets/swagger-ui/swagger-ui.css"],
    scripts: ["/assets/swagger-ui/swagger-ui-bundle.js"],
    body: () => `<h1>API reference</h1>
<p>Every operation of this installation, grouped by API family; each family says how it authenticates. The document itself: <a href="/openapi.json">/openapi.json</a>.</p>
<h2>Operations by API family</h2>
<div id="reference" class="reference"></div>`,
  },
};
