import type { IncomingHttpHeaders } from "node:http";

/**
 * What keeps another site from acting with a signed-in person's session cookie. A browser sends
 * the cookie (SameSite=Lax) with a top-level form POST from any site, and with a cross-site
 * `fetch` the page may send a "simple" request (text/plain, form types) without asking first.
 * Two rules close that, for requests the cookie would authenticate: their body must be JSON by
 * its declared type (a page on another site cannot send `Content-Type: application/json` without
 * the CORS preflight, which the gateway never grants), and their writes must come from a page of
 * this installation as the browser itself says (Sec-Fetch-Site, else Origin). The one exception
 * to the first, a form upload of a route declaring `multipart_file`, is a body any page may post:
 * it is taken only when the browser says it comes from this installation (isSameOriginWrite). Basic, token and
 * Bearer callers send their credentials themselves, so no other site can act with them, and
 * their bodies are read as JSON whatever the declared type: client libraries of the real API
 * send JSON without saying so (toggl-client's reports, a string body with no Content-Type).
 */

/** The answer to a body that is not declared JSON (415, in the family's error format). */
export const NOT_JSON_MESSAGE = "Content-Type must be application/json";
/** The answer to a cookie-authenticated write from another site (403, in the family's error format). */
export const CROSS_SITE_MESSAGE = "Cross-site request refused";

/** `application/json` or a `+json` type (`application/merge-patch+json`), whatever the parameters. */
export function isJsonContentType(header: string | undefined): boolean {
  const type = (header ?? "").split(";", 1)[0].trim().toLowerCase();
  return type === "application/json" || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(type);
}

/** A request the session cookie would authenticate: no Authorization header, the cookie present. */
export function reliesOnCookie(headers: IncomingHttpHeaders, cookieName: string): boolean {
  return !headers.authorization && (headers.cookie ?? "").split(";").some((part) => part.trim().startsWith(`${cookieName}=`));
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * True when a browser sent this write from a page that is not of this installation. Sec-Fetch-Site
 * is the browser's own verdict (scripts cannot set it): `same-origin`, or `none` for what the person
 * did themselves, pass; `same-site` does not (a sibling host is another application). Without it
 * (older browsers), Origin must be one of `origins`: PUBLIC_URL's, or the origin the request was
 * sent to (a browser only sends its own page's Origin, and a page of another site cannot make it
 * send ours). A request with neither header is no browser's cross-site request: a tool such as
 * curl holding the cookie itself.
 */
export function isCrossSiteWrite(method: string, headers: IncomingHttpHeaders, origins: readonly string[]): boolean {
  if (SAFE_METHODS.has(method.toUpperCase())) return false;
  return browserSaysSameOrigin(headers, origins) === false;
}

/**
 * True only when the browser says the request comes from a page of this installation, by the same
 * headers as isCrossSiteWrite. A request with neither header is not taken here: a cross-site form
 * from a browser too old to send Sec-Fetch-Site, or Origin with a form, would look the same.
 */
export function isSameOriginWrite(headers: IncomingHttpHeaders, origins: readonly string[]): boolean {
  return browserSaysSameOrigin(headers, origins) === true;
}

/** The browser's word on the request's page: of this installation (true), of another (false), or none (undefined). */
function browserSaysSameOrigin(headers: IncomingHttpHeaders, origins: readonly string[]): boolean | undefined {
  const site = headers["sec-fetch-site"];
  if (typeof site === "string" && site !== "") return site === "same-origin" || site === "none";
  const origin = headers.origin;
  if (origin === undefined || origin === "") return undefined;
  return origins.includes(origin.toLowerCase());
}

/** The origin of a URL (PUBLIC_URL) as browsers write it in Origin: scheme, host, a port only when not the default. */
export function originOf(url: string): string {
  return new URL(url).origin.toLowerCase();
}
