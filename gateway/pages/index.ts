import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { cookieValue, SESSION_COOKIE } from "../auth.js";
import { layout, PAGES, type PageContext } from "./templates.js";

/**
 * The pages people open: the home page, signing in and up, the profile with the API token, the
 * links mail carries (invitations, password resets) and the API reference. Server-rendered
 * shells whose scripts (static files, no inline script) call the REST API on the same origin.
 */

/**
 * No inline script or style, nothing from another origin (the reference's renderer is served from
 * here), no framing. `img-src data:` for the renderer's icons, which its stylesheet inlines.
 */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const HERE = dirname(fileURLToPath(import.meta.url));
const RENDERER = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist"));

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

function asset(path: string, type: string): Asset {
  const body = readFileSync(path);
  return { body, type, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"` };
}

/** Every static file, read once at start-up: the pages' stylesheet and scripts, the renderer's bundle. */
function assets(): Map<string, Asset> {
  const files = new Map<string, Asset>();
  for (const name of ["app.css", "common.js", "home.js", "login.js", "signup.js", "profile.js", "invitation.js", "reset.js", "docs.js"]) {
    files.set(`/assets/${name}`, asset(join(HERE, "static", name), name.endsWith(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8"));
  }
  files.set("/assets/favicon.svg", asset(join(HERE, "static", "favicon.svg"), "image/svg+xml"));
  files.set("/assets/swagger-ui/swagger-ui-bundle.js", asset(join(RENDERER, "swagger-ui-bundle.js"), "text/javascript; charset=utf-8"));
  files.set("/assets/swagger-ui/swagger-ui.css", asset(join(RENDERER, "swagger-ui.css"), "text/css; charset=utf-8"));
  return files;
}

function version(): string {
  return String(JSON.parse(readFileSync(join(HERE, "..", "..", "package.json"), "utf8")).version);
}

/** Headers of every page: the CSP, no framing, and no Referer (invitation and reset pages carry codes in their URL). */
function pageHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header("content-security-policy", PAGE_CSP)
    .header("x-frame-options", "DENY")
    .header("referrer-policy", "no-referrer")
    .header("cache-control", "no-store")
    .type("text/html; charset=utf-8");
}

function hasSession(req: FastifyRequest): boolean {
  try {
    return Boolean(cookieValue(req.headers.cookie, SESSION_COOKIE));
  } catch {
    return false;
  }
}

/** Registers the pages and their static files on the gateway (same origin as the API). */
export function registerPages(app: FastifyInstance, options: { publicUrl: string }): void {
  const files = assets();
  const ctx = { publicUrl: options.publicUrl, version: version() };
  for (const [path, file] of files) {
    app.get(path, (req, reply) => {
      reply.header("etag", file.etag).header("cache-control", "no-cache");
      if (req.headers["if-none-match"] === file.etag) return reply.code(304).send();
      return reply.type(file.type).send(file.body);
    });
  }
  for (const [path, page] of Object.entries(PAGES)) {
    app.get(path, (req, reply) => {
      const pageCtx: PageContext = { ...ctx, session: hasSession(req) };
      // The profile is the signed-in person's: without a session, sign in first and come back.
      if (path === "/profile" && !pageCtx.session) return pageHeaders(reply).redirect("/login?next=%2Fprofile", 303);
      return pageHeaders(reply).send(layout(page, pageCtx));
    });
  }
}
