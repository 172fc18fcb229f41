import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import type { DescService, JsonValue } from "@bufbuild/protobuf";
import { Family } from "../gen/gateway/v1/annotations_pb.js";
import { IdentityService } from "../gen/accounts/v1/accounts_pb.js";
import { HiringAdminService } from "../gen/hiring/v1/admin_pb.js";
import type { Directory } from "../lib/directory.js";
import type { Logger } from "../lib/logger.js";
import { HEADER } from "../lib/identity.js";
import { PROTO_FILES } from "../lib/contracts.js";
import { coerceParam, decodeField, decodeMessage, encodeField, encodeMessage, hiringTimestamp, trackingTimestamp, RestInputError } from "../lib/rest-json.js";
import { collectRoutes, type FileRoute, type RestRoute, type UploadRoute } from "./routes.js";
import { attachment, declaredFileName, FileCall, openFile } from "./file-answers.js";
import type { FileChunk } from "../gen/gateway/v1/files_pb.js";
import { openApiDocument } from "./openapi.js";
import { FailureThrottle } from "./throttle.js";
import { errorReply, familyOfPath, isRetiredHiringVersion, replyForConnectError, type ErrorReply } from "./errors.js";
import { AuthenticationFailed, Authenticator, SESSION_COOKIE } from "./auth.js";
import { answerClientError, timeoutCheckingMs } from "./client-errors.js";
import { HttpMetrics } from "../lib/metrics.js";
import { fastifyPath, UNAVAILABLE, unavailableMessage } from "./unavailable.js";
import { CROSS_SITE_MESSAGE, isCrossSiteWrite, isJsonContentType, isSameOriginWrite, NOT_JSON_MESSAGE, originOf, reliesOnCookie } from "./cross-site.js";
import { FormUpload, MULTIPART_FORM, readFormUpload } from "./multipart.js";
import { registerPages } from "./pages/index.js";
import { DEFAULT_PORTS } from "../lib/config.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** The route's `multipart_file`: its form uploads are read in the multipart parser. */
    upload?: UploadRoute;
  }
}

export const BODY_LIMIT = 1024 * 1024;
/** Session cookie lifetime; the accounts service expires sessions after the same time. */
export const SESSION_MAX_AGE_SECONDS = 30 * 24 * 3600;

/**
 * How long the gateway waits for a client: the request headers, then the whole request (a body
 * that never arrives ends the connection with 408), and between requests on a kept-alive
 * connection; and how long for a service's answer.
 */
export const TIMEOUTS = { headersMs: 10_000, requestMs: 15_000, keepAliveMs: 5_000, serviceCallMs: 30_000 };

export interface GatewayOptions {
  directory: Directory;
  log: Logger;
  ready: () => Promise<boolean>;
  services?: DescService[];
  throttle?: FailureThrottle;
  /** Fastify's trustProxy: which peers' X-Forwarded-* headers count (Config.trustProxy). */
  trustProxy: boolean | string;
  /** TIMEOUTS, shorter in tests. */
  timeouts?: Partial<typeof TIMEOUTS>;
  /** Request counts and latencies per route, served at GET /metrics (a new set when not given). */
  metrics?: HttpMetrics;
  /** PUBLIC_URL (Config.publicUrl): the base of links in answers; the configuration's default when not given. */
  publicUrl?: string;
}

/** What puts a gateway into its lame-duck time: answers close their connections (see drainGateway). */
const lameDucks = new WeakMap<FastifyInstance, () => void>();

/**
 * Stops a gateway as a replica leaving its load balancer: for `lameDuckMs` it goes on answering,
 * each answer closing its connection (the client opens its next one elsewhere), then it closes,
 * finishing the requests in progress. Without the lame-duck time, a client could send a request
 * on a kept-alive connection at the moment the closing gateway ends it.
 */
export async function drainGateway(app: FastifyInstance, lameDuckMs: number): Promise<void> {
  if (lameDuckMs > 0) {
    lameDucks.get(app)?.();
    await new Promise((resolve) => setTimeout(resolve, lameDuckMs));
  }
  await app.close();
}

/** A step refused the request: the answer is decided. */
class Refusal extends Error {
  constructor(readonly reply: ErrorReply) {
    super(`refused with ${reply.status}`);
  }
}

function send(reply: FastifyReply, r: ErrorReply): FastifyReply {
  if (r.retryAfter) reply.header("retry-after", String(r.retryAfter));
  return reply.code(r.status).type("application/json").send(JSON.stringify(r.body));
}

function sessionCookie(token: string, maxAge: number): string {
  return `${SESSION_COOKIE}=${encodeURIComponent(token)}; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=${maxAge}`;
}

/**
 * Builds the request message: path variables, then the query string, then the body. With
 * `body: "*"` the body's fields win over query parameters of the same name.
 */
function requestMessage(route: RestRoute, req: FastifyRequest): Record<string, unknown> {
  const message: Record<string, unknown> = {};
  const query = (req.query ?? {}) as Record<string, string | string[]>;
  const params = (req.params ?? {}) as Record<string, string>;
  for (const field of route.queryFields) {
    // The proto name, or its JSON name where the real API's parameter is camel-case (teDeletionMode).
    const raw = query[field.name] ?? query[field.jsonName];
    if (raw !== undefined) message[field.localName] = coerceParam(field, raw);
  }
  if (req.body instanceof FormUpload) {
    if (req.body.file) message[route.upload!.field.localName] = req.body.file;
  } else if (route.option.body === "*") {
    if (req.body !== undefined) Object.assign(message, decodeMessage(route.method.input, req.body));
  } else if (route.bodyField) {
    const value = decodeField(route.bodyField, req.body);
    if (value !== undefined) message[route.bodyField.localName] = value;
  }
  for (const field of route.pathFields) {
    try {
      message[field.localName] = coerceParam(field, params[field.name]);
    } catch {
      throw new RestInputError(`Invalid ${field.name}`);
    }
  }
  return message;
}

/**
 * The gateway: one Fastify route per RPC with a route option, found in the descriptors at
 * start-up; REST JSON in, a Connect call to the owning service, REST JSON out.
 */
/** The longest path segment the router takes (comma-separated ids of a bulk change). */
export const MAX_PATH_SEGMENT = 2048;

export async function buildGateway(options: GatewayOptions) {
  const { directory, log } = options;
  const timeouts = { ...TIMEOUTS, ...options.timeouts };
  const base = options.publicUrl ?? `http://localhost:${DEFAULT_PORTS.gateway}`;
  /** The URL the client asked for, on PUBLIC_URL: links in answers never follow a forged Host or X-Forwarded-Host. */
  const publicUrl = (req: FastifyRequest) => `${base}${req.url}`;
  const app = Fastify({
    // No logger of Fastify's: with one, every request got a child logger (made and checked) though
    // almost none logs. The gateway writes what it logs to `log` itself, with the request's id.
    bodyLimit: BODY_LIMIT,
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    // Node looks for requests past the two timeouts only at this interval (30 s by default): a
    // client is cut at most this long after its time is up (see timeoutCheckingMs).
    http: { headersTimeout: timeouts.headersMs, connectionsCheckingInterval: timeoutCheckingMs(timeouts) },
    // The client's address (the failure throttle's key) comes from X-Forwarded-For only when the
    // peer is a trusted proxy: a client that can reach the gateway directly cannot choose it.
    trustProxy: options.trustProxy,
    // Stopping: requests on connections already open are still answered (see the preClose hook).
    return503OnClosing: false,
    // A path segment may carry a bulk change's ids (100 time entries, each id up to 16 digits).
    routerOptions: { maxParamLength: MAX_PATH_SEGMENT },
    // What the router refuses before any route: a malformed percent-encoding (400) and a path
    // segment over MAX_PATH_SEGMENT characters (414), in the family's error format.
    frameworkErrors: (err, req, reply) => {
      const status = err.statusCode === 414 ? 414 : 400;
      void send(reply, errorReply(familyOfPath(req.url), status, status === 414 ? "URI Too Long" : "Invalid URL"));
    },
    // What Node's HTTP parser refuses (malformed requests, headers over 16 KiB, timeouts).
    clientErrorHandler: answerClientError,
  });
  const services = options.services ?? PROTO_FILES.flatMap((f) => f.services);
  const routes = collectRoutes(services);
  const auth = new Authenticator(directory.client("accounts", IdentityService), directory.client("hiring", HiringAdminService));
  const throttle = options.throttle ?? new FailureThrottle();
  const clients = new Map<DescService, Client<DescService>>();
  const clientFor = (route: RestRoute) => {
    let c = clients.get(route.service);
    if (!c) {
      c = createClient(route.service, directory.transport(route.owner));
      clients.set(route.service, c);
    }
    return c;
  };

  // JSON bodies, declared as JSON where the session cookie is the credential (see cross-site.ts); an
  // empty body is no body (clients send POSTs without one).
  app.removeAllContentTypeParsers();
  const jsonBody = (req: FastifyRequest, text: string, done: (err: Error | null, body?: unknown) => void) => {
    const s = text.trim();
    if (s === "") return done(null, undefined);
    if (!isJsonContentType(req.headers["content-type"]) && reliesOnCookie(req.headers, SESSION_COOKIE)) {
      return done(Object.assign(new Error(NOT_JSON_MESSAGE), { statusCode: 415 }), undefined);
    }
    try {
      done(null, JSON.parse(s));
    } catch {
      done(Object.assign(new Error("Invalid JSON input"), { statusCode: 400 }), undefined);
    }
  };
  app.addContentTypeParser("*", { parseAs: "string" }, (req, text, done) => jsonBody(req, text as string, done));
  // A form is a form upload on a route that declares one (multipart.ts), and like any other body elsewhere.
  app.addContentTypeParser(MULTIPART_FORM, { parseAs: "buffer" }, (req, body, done) => {
    const upload = req.routeOptions.config?.upload;
    const data = body as Buffer;
    if (!upload) return jsonBody(req, data.toString("utf8"), done);
    if (data.length === 0) return done(null, undefined);
    readFormUpload(data, req.headers["content-type"]!, upload).then((form) => done(null, form), done);
  });

  const metrics = options.metrics ?? new HttpMetrics();
  // Hooks on every request take a callback: an async hook costs each request a promise and a tick.
  app.addHook("onResponse", (req, reply, done) => {
    metrics.observe(req.routeOptions.url, req.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  // Stopping (SIGTERM): requests that still come on open connections are answered, each answer
  // closing its connection, so that the drain ends once they are (return503OnClosing is off).
  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
  });
  lameDucks.set(app, () => (closing = true));

  // No answer is to be sniffed as something other than its declared type.
  app.addHook("onSend", (_req, reply, payload, done) => {
    reply.header("x-content-type-options", "nosniff");
    if (closing) reply.header("connection", "close");
    done(null, payload);
  });

  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
    const family = familyOfPath(req.url);
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) log.error({ reqId: req.id, err }, "unexpected gateway error");
    const message = status === 413 ? "Request body too large" : status === 500 ? "Internal Server Error" : err.message;
    return send(reply, errorReply(family, status, message));
  });

  app.setNotFoundHandler((req, reply) => {
    const family = familyOfPath(req.url);
    if (family === Family.HIRING && isRetiredHiringVersion(req.url)) {
      return send(reply, errorReply(family, 410, "API version no longer available"));
    }
    return send(reply, errorReply(family, 404, "Not Found"));
  });

  // The real API's operations a self-hosted installation does not offer: 501 with a JSON string saying so.
  for (const group of UNAVAILABLE) {
    const answer = errorReply(Family.TRACKING, 501, unavailableMessage(group));
    for (const [method, path] of group.operations) app.route({ method, url: fastifyPath(path), handler: (_req, reply) => send(reply, answer) });
  }

  const openapi = openApiDocument(routes);
  app.get("/openapi.json", async () => openapi);
  registerPages(app, { publicUrl: base });
  app.get("/healthz", async () => ({ status: "ok" }));
  // Inside the cluster only: the Ingress forwards the API's paths, never this one.
  app.get("/metrics", async (_req, reply) => reply.type("text/plain; version=0.0.4").send(await metrics.exposition()));
  app.get("/readyz", async (_req, reply) => {
    const ok = await options.ready().catch(() => false);
    return reply.code(ok ? 200 : 503).send({ status: ok ? "ok" : "unavailable" });
  });

  /** Step 1: a client address that failed authentication too often waits. */
  function checkThrottle(route: RestRoute, req: FastifyRequest): void {
    const retryAfter = throttle.retryAfterSeconds(req.ip);
    if (retryAfter > 0) throw new Refusal({ ...errorReply(route.family, 429, "Too many failed authentication attempts; try again later"), retryAfter });
  }

  /** Step 2: who calls, as identity headers for the service. */
  async function authenticate(route: RestRoute, req: FastifyRequest): Promise<Record<string, string>> {
    try {
      return await auth.identify(route.family, { authorization: req.headers.authorization, cookie: req.headers.cookie }, route.public && !route.optionalCaller);
    } catch (err) {
      if (!(err instanceof AuthenticationFailed)) throw err;
      throttle.recordFailure(req.ip);
      if (route.optionalCaller) return {};
      throw new Refusal(
        route.family === Family.HIRING ? errorReply(route.family, 401, "Unauthorized") : errorReply(route.family, 403, "Incorrect username and/or password"),
      );
    }
  }

  /**
   * Step 2b: a write with the session cookie comes from a page of this installation, and a form
   * upload with it is one the browser says does (see cross-site.ts).
   */
  const publicOrigin = originOf(base);
  function checkSameSite(route: RestRoute, req: FastifyRequest, identity: Record<string, string>): void {
    if (!identity[HEADER.sessionToken]) return;
    const origins = [publicOrigin, `${req.protocol}://${req.host}`.toLowerCase()];
    const refused = req.body instanceof FormUpload ? !isSameOriginWrite(req.headers, origins) : isCrossSiteWrite(req.method, req.headers, origins);
    if (refused) throw new Refusal(errorReply(route.family, 403, CROSS_SITE_MESSAGE));
  }

  /** Step 3: the request message from path, query and body. */
  function decode(route: RestRoute, req: FastifyRequest): Record<string, unknown> {
    try {
      return requestMessage(route, req);
    } catch (err) {
      if (err instanceof RestInputError) throw new Refusal(errorReply(route.family, 400, err.message));
      throw err;
    }
  }

  /** Step 4: the owning service's answer. */
  async function call(route: RestRoute, message: Record<string, unknown>, identity: Record<string, string>, req: FastifyRequest): Promise<Record<string, unknown>> {
    const rpc = (clientFor(route) as unknown as Record<string, (m: unknown, o: unknown) => Promise<Record<string, unknown>>>)[route.method.localName];
    return rpc(message, { headers: { ...identity, [HEADER.requestUrl]: publicUrl(req) }, timeoutMs: timeouts.serviceCallMs });
  }

  /**
   * Steps 4 and 5 of a file answer: the stream's bytes as they come, under the declared content
   * type and file name. What fails before the first bytes throws here, as a unary call's failure.
   */
  async function answerFile(route: RestRoute, file: FileRoute, message: Record<string, unknown>, identity: Record<string, string>, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const rpc = (clientFor(route) as unknown as Record<string, (m: unknown, o: unknown) => AsyncIterable<FileChunk>>)[route.method.localName];
    // No deadline for the whole call (a large file takes its time): FileCall cuts a service that stalls.
    const fileCall = new FileCall(timeouts.serviceCallMs);
    const chunks = rpc(message, { headers: { ...identity, [HEADER.requestUrl]: publicUrl(req) }, signal: fileCall.signal });
    const opened = await openFile(chunks, fileCall, (err) => {
      if (fileCall.cancelled) return;
      log.error({ reqId: req.id, err: ConnectError.from(err), rpc: route.method.name }, "file answer cut short");
    });
    reply.raw.once("close", () => fileCall.cancel());
    if (route.option.noStore) reply.header("cache-control", "no-store");
    reply.header("content-disposition", attachment(opened.fileName ?? declaredFileName(file, message)));
    return reply.code(route.option.status || 200).type(file.contentType).send(opened.body);
  }

  /** Step 5: the REST answer, with the cookie, cache and response headers the route declares. */
  function encode(route: RestRoute, response: Record<string, unknown>, identity: Record<string, string>, reply: FastifyReply): FastifyReply {
    const { option } = route;
    if (option.revokesCredentials) {
      // The caller, or on a public route (a password reset) the user the answer names.
      const userId = identity[HEADER.userId] ?? (response.user as { id?: bigint } | undefined)?.id?.toString();
      if (userId) auth.remembered.forgetUser(userId);
    }
    if (option.noStore) reply.header("cache-control", "no-store");
    if (option.sessionCookie) {
      const token = response[route.method.output.fields.find((f) => f.name === option.sessionCookie)!.localName];
      if (typeof token === "string" && token) reply.header("set-cookie", sessionCookie(token, SESSION_MAX_AGE_SECONDS));
    }
    if (option.clearSessionCookie) reply.header("set-cookie", sessionCookie("", 0));
    const format = route.family === Family.HIRING ? hiringTimestamp : trackingTimestamp;
    for (const { field, header } of route.headerFields) {
      const value = response[field.localName];
      if (value !== undefined) reply.header(header, String(encodeField(field, value, format)));
    }
    const status = option.status || 200;
    if (option.emptyBody) return reply.code(status).send();
    let body: JsonValue;
    if (route.responseField) body = encodeField(route.responseField, response[route.responseField.localName], format);
    else {
      const whole = encodeMessage(route.method.output, response, format) as Record<string, JsonValue>;
      // What goes into headers stays out of the body.
      for (const { field } of route.headerFields) delete whole[field.name];
      body = whole;
    }
    return reply.code(status).type("application/json").send(JSON.stringify(body));
  }

  for (const route of routes) {
    const handler = async (req: FastifyRequest, reply: FastifyReply) => {
      try {
        checkThrottle(route, req);
        const identity = await authenticate(route, req);
        checkSameSite(route, req, identity);
        const message = decode(route, req);
        if (route.file) return await answerFile(route, route.file, message, identity, req, reply);
        const response = await call(route, message, identity, req);
        return encode(route, response, identity, reply);
      } catch (err) {
        if (err instanceof Refusal) return send(reply, err.reply);
        const e = ConnectError.from(err);
        if (e.code === Code.Internal || e.code === Code.Unknown) log.error({ reqId: req.id, err: e, rpc: route.method.name }, "service error");
        return send(reply, replyForConnectError(route.family, e));
      }
    };
    for (const url of route.paths) app.route({ method: route.httpMethod as "GET", url, handler, config: { upload: route.upload } });
  }
  log.debug({ routes: routes.length }, "gateway routes registered");
  return app;
}
