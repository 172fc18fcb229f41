import { ConnectError, createClient, type Client, type ConnectRouter, type Interceptor, type StreamRequest, type Transport, type UnaryRequest } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import type { DescService } from "@bufbuild/protobuf";
import type { Config, ServiceName } from "./config.js";
import { createLogger, type Logger } from "./logger.js";
import { internalAuthInterceptor, internalTokenInterceptor } from "./identity.js";
import { createLocalTransport } from "./local-transport.js";
import { answerOf, watchStream } from "./interceptors.js";
import { fieldLimitsInterceptor } from "./field-limits.js";
import { isConnectionFailure } from "./db.js";
import { rewrap, unavailable } from "./errors.js";
import { refuseInsideTransaction } from "./transactions.js";

/**
 * What a handler threw that is not a ConnectError: a database that cannot be reached answers
 * `unavailable` (the client may retry), anything else is logged (the caller sees only "internal
 * error").
 */
function unexpectedErrorLogger(log: Logger): Interceptor {
  /** The error to answer instead of `err`, logged. */
  const unexpected = (req: UnaryRequest | StreamRequest, err: unknown): unknown => {
    if (err instanceof ConnectError) return err;
    const rpc = `${req.service.typeName}/${req.method.name}`;
    if (isConnectionFailure(err)) {
      log.warn({ err, rpc }, "database unavailable");
      return unavailable("database unavailable");
    }
    log.error({ err, rpc }, "unexpected error in handler");
    return err;
  };
  // Only what needs the call is made per call, and unnamed: tsx names every named function as it is made.
  return (next) => (req) =>
    answerOf(next, req).then(
      // A stream's handler runs while its answer is read: what it throws shows there.
      (res) => (res.stream ? watchStream(res, (err) => unexpected(req, err)) : res),
      (err: unknown) => {
        throw unexpected(req, err);
      },
    );
}

/** The interceptors every service runs on every call, whatever the transport. */
export function serverInterceptors(config: Config, log: Logger): Interceptor[] {
  // Field limits after authentication: a caller without the internal token learns nothing of them.
  return [unexpectedErrorLogger(log), internalAuthInterceptor(config.internalToken), fieldLimitsInterceptor()];
}

/**
 * Directory finds the services. A service running in this process is called in memory
 * (same interceptors, messages handed over without serializing); any other over HTTP/2 at its
 * configured URL.
 */
export class Directory {
  private readonly local = new Map<ServiceName, { routes: (router: ConnectRouter) => void; interceptors: Interceptor[]; access: Interceptor[] }>();
  private readonly transports = new Map<ServiceName, Transport>();

  constructor(
    private readonly config: Config,
    private readonly log?: Logger,
  ) {}

  /**
   * `interceptors` run before serverInterceptors on every call in memory (the service's metrics),
   * `access` after them (the service's access interceptor), as on the service's port.
   */
  registerLocal(name: ServiceName, routes: (router: ConnectRouter) => void, interceptors: Interceptor[] = [], access: Interceptor[] = []): void {
    this.local.set(name, { routes, interceptors, access });
    this.transports.delete(name);
  }

  transport(name: ServiceName): Transport {
    let t = this.transports.get(name);
    if (!t) {
      const local = this.local.get(name);
      // A call in memory needs no internal token: the service's interceptors know it never left the process.
      t = local
        ? createLocalTransport(local.routes, {
            clientInterceptors: [],
            serverInterceptors: [...local.interceptors, ...serverInterceptors(this.config, this.log ?? createLogger("silent")), ...local.access],
          })
        : createConnectTransport({
            baseUrl: this.config.serviceUrls[name],
            httpVersion: "2",
            useBinaryFormat: true,
            interceptors: [internalTokenInterceptor(this.config.internalToken)],
          });
      this.transports.set(name, t);
    }
    return t;
  }

  /**
   * A client of the named service. Its transport is looked up at each call, so a client made
   * before the service registers in this process (services start in turn) still calls it in
   * memory.
   */
  client<S extends DescService>(name: ServiceName, service: S): Client<S> {
    const transport: Transport = {
      unary: (...args) => this.transport(name).unary(...args),
      stream: (...args) => this.transport(name).stream(...args),
    };
    return createClient(service, transport);
  }

  /**
   * A client for a service that calls another while answering its own caller: a refusal from the
   * other service comes back rewrapped (`rewrap`), so it can be thrown on as this service's answer.
   */
  peerClient<S extends DescService>(name: ServiceName, service: S): Client<S> {
    const transport: Transport = {
      unary: (...args) => {
        refuseInsideTransaction(`${args[0].parent.typeName}.${args[0].name}`);
        return this.transport(name)
          .unary(...args)
          .catch((err: unknown) => {
            throw rewrap(err);
          });
      },
      stream: (...args) => this.transport(name).stream(...args),
    };
    return createClient(service, transport);
  }
}
