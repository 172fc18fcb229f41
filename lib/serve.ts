import * as http from "node:http";
import * as http2 from "node:http2";
import * as net from "node:net";
import type { ConnectRouter, Interceptor } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";

export interface Listening {
  port: number;
  /**
   * Stops taking connections and lets the calls in progress finish: HTTP/2 sessions get a GOAWAY,
   * HTTP/1 connections close when their request is answered (idle ones at once). What is still
   * open after `graceMs` is cut. With `lameDuckMs`, the port first goes on serving for that long
   * while telling its clients to go elsewhere: HTTP/2 clients get a GOAWAY that names no last call
   * (new calls go to a new connection, calls already on their way are served) and HTTP/1 answers
   * close their connections; so that no call crosses the closing of its connection.
   */
  close(graceMs?: number, lameDuckMs?: number): Promise<void>;
}

/** How long `Listening.close` waits for calls in progress by default. */
export const DRAIN_MS = 10_000;

interface MinimalResponse {
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body: string): unknown;
}

/** Answers GET /healthz (alive), GET /readyz (dependencies reachable) and, when given, GET /metrics. */
export function healthHandler(ready: () => Promise<boolean>, metrics?: () => Promise<string>) {
  return async (req: { url?: string; method?: string }, res: MinimalResponse): Promise<boolean> => {
    const path = (req.url ?? "").split("?")[0];
    if (req.method === "GET" && path === "/metrics" && metrics) {
      const text = await metrics().catch(() => undefined);
      res.writeHead(text === undefined ? 503 : 200, { "content-type": "text/plain; version=0.0.4" });
      res.end(text ?? "");
      return true;
    }
    if (req.method !== "GET" || (path !== "/healthz" && path !== "/readyz")) return false;
    const ok = path === "/healthz" ? true : await ready().catch(() => false);
    const body = JSON.stringify({ status: ok ? "ok" : "unavailable" });
    res.writeHead(ok ? 200 : 503, { "content-type": "application/json" });
    res.end(body);
    return true;
  };
}

/**
 * Serves Connect, gRPC and gRPC-Web on one port, over HTTP/1.1 and cleartext HTTP/2: the
 * first bytes of a connection tell the HTTP/2 preface from an HTTP/1 request line.
 */
export async function serveConnect(options: {
  routes: (router: ConnectRouter) => void;
  interceptors: Interceptor[];
  ready: () => Promise<boolean>;
  metrics?: () => Promise<string>;
  port: number;
  host?: string;
}): Promise<Listening> {
  const health = healthHandler(options.ready, options.metrics);
  const notFound = (_req: unknown, res: MinimalResponse) => {
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ code: "unimplemented", message: "no such procedure" }));
  };
  const adapter = connectNodeAdapter({
    routes: options.routes,
    interceptors: options.interceptors,
    readMaxBytes: 64 * 1024 * 1024,
    fallback: (req, res) => {
      health(req, res).then((handled) => handled || notFound(req, res));
    },
  });
  const h1 = http.createServer(adapter);
  const h2 = http2.createServer({}, adapter);
  const sockets = new Set<net.Socket>();
  const sessions = new Set<http2.ServerHttp2Session>();
  // HTTP/1 requests in progress per connection: a draining server closes a connection once its count is 0.
  const busy = new Map<net.Socket, number>();
  const h2Sockets = new WeakSet<net.Socket>();
  let draining = false;
  h2.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
    if (draining) session.close();
  });
  h1.prependListener("request", (req, res) => {
    const socket = req.socket;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    if (draining) res.setHeader("connection", "close");
    res.once("close", () => {
      const left = (busy.get(socket) ?? 1) - 1;
      busy.set(socket, Math.max(left, 0));
      if (draining && left <= 0) socket.end();
    });
  });
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => {
      sockets.delete(socket);
      busy.delete(socket);
    });
    socket.once("data", (chunk) => {
      socket.pause();
      socket.unshift(chunk);
      const http2Preface = chunk.subarray(0, 3).toString("latin1") === "PRI";
      if (http2Preface) h2Sockets.add(socket);
      else busy.set(socket, busy.get(socket) ?? 0);
      (http2Preface ? h2 : h1).emit("connection", socket);
      process.nextTick(() => socket.resume());
    });
    socket.on("error", () => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host ?? "0.0.0.0", () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    close: async (graceMs = DRAIN_MS, lameDuckMs = 0) => {
      draining = true;
      if (lameDuckMs > 0) {
        for (const session of sessions) session.goaway(http2.constants.NGHTTP2_NO_ERROR, 2 ** 31 - 1);
        await new Promise((resolve) => setTimeout(resolve, lameDuckMs));
      }
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of sessions) session.close();
      // Idle HTTP/1 connections close now. One that has sent nothing yet is served as it comes
      // (an HTTP/2 session is closed as soon as it opens, after the calls it carried at once).
      for (const socket of sockets) if (busy.get(socket) === 0) socket.destroy();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
      await Promise.race([closed, late]);
      clearTimeout(timer);
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
