import { create, type DescMessage, type DescMethod, type DescService, type MessageInitShape } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  createContextKey,
  createContextValues,
  type ConnectRouter,
  type ContextValues,
  type HandlerContext,
  type Interceptor,
  type StreamRequest,
  type StreamResponse,
  type Transport,
  type UnaryRequest,
  type UnaryResponse,
} from "@connectrpc/connect";
import { answerOf, watchStream } from "./interceptors.js";

/** A unary handler answers a message; a server-streaming one an async iterable of messages. */
type Handler = (request: unknown, context: HandlerContext) => unknown;
type Next = (req: UnaryRequest | StreamRequest) => Promise<UnaryResponse | StreamResponse>;
/** A call in memory carries its timeout to the handler's context (interceptors that copy the request keep it). */
type LocalRequest = (UnaryRequest | StreamRequest) & { timeoutMs?: number };

/** The kinds of RPC served in memory. */
const SERVED_KINDS = new Set(["unary", "server_streaming"]);

/** Why a finished call's context is aborted: one shared reason (an AbortError per call cost a stack trace each). */
const CALL_FINISHED = new ConnectError("the call has finished", Code.Canceled);
/** The signal of a call whose caller gave none: it never aborts. */
const NEVER = new AbortController().signal;

const key = (service: DescService, method: { name: string }) => `${service.typeName}/${method.name}`;

/**
 * Set on every call this transport makes: the call never left this process. No network caller
 * can set a context value, so a server interceptor may trust it (the internal token guards the
 * network ports, not calls in memory).
 */
export const inMemoryCall = createContextKey(false, { description: "a call in memory" });

/**
 * The headers of a call in memory: what undici's Headers does for the names and values RPC
 * metadata uses (names case-insensitive, values trimmed, appended values joined by ", ",
 * Set-Cookie kept apart, iteration in name order), over a Map. undici's own, with its WebIDL
 * checks on every get and set, cost more per call than the interceptors that use it.
 */
export class MemoryHeaders implements Headers {
  /** Made by the first value: most headers of a call in memory (its answer's) stay empty. */
  private byName?: Map<string, string>;
  private cookies?: string[];

  constructor(init?: HeadersInit) {
    if (!init) return;
    if (Symbol.iterator in init) for (const [name, value] of init as Iterable<[string, string]>) this.append(name, value);
    else for (const name of Object.keys(init)) this.append(name, init[name]);
  }

  append(name: string, value: string): void {
    const k = name.toLowerCase();
    const v = String(value).trim();
    if (k === "set-cookie") (this.cookies ??= []).push(v);
    const byName = (this.byName ??= new Map());
    const had = byName.get(k);
    byName.set(k, had === undefined ? v : `${had}, ${v}`);
  }

  set(name: string, value: string): void {
    const k = name.toLowerCase();
    const v = String(value).trim();
    if (k === "set-cookie") this.cookies = [v];
    (this.byName ??= new Map()).set(k, v);
  }

  get(name: string): string | null {
    return this.byName?.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.byName?.has(name.toLowerCase()) ?? false;
  }

  delete(name: string): void {
    const k = name.toLowerCase();
    if (k === "set-cookie") this.cookies = undefined;
    this.byName?.delete(k);
  }

  getSetCookie(): string[] {
    return [...(this.cookies ?? [])];
  }

  forEach(callback: (value: string, name: string, parent: Headers) => void, thisArg?: unknown): void {
    for (const [name, value] of this) callback.call(thisArg, value, name, this);
  }

  *entries(): IterableIterator<[string, string]> {
    const byName = this.byName ?? new Map<string, string>();
    for (const name of [...byName.keys()].sort()) {
      if (name === "set-cookie") for (const cookie of this.cookies ?? []) yield [name, cookie];
      else yield [name, byName.get(name)!];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

/**
 * A handler's context for a call in memory. What a handler rarely asks for is made only when it
 * asks: the signal (aborted by the caller's signal, the deadline or the end of the call) with
 * its timer, and the response headers and trailers. Making them on every call cost more than
 * the rest of the transport.
 */
class LocalContext implements HandlerContext {
  readonly protocolName = "local";
  readonly requestMethod = "POST";
  private readonly deadline?: number;
  private controller?: AbortController;
  private timer?: NodeJS.Timeout;
  private headers?: Headers;
  private trailers?: Headers;

  constructor(
    readonly service: DescService,
    readonly method: DescMethod,
    readonly url: string,
    readonly requestHeader: Headers,
    readonly values: ContextValues,
    private readonly requestSignal: AbortSignal,
    timeoutMs: number | undefined,
  ) {
    if (timeoutMs !== undefined) this.deadline = Date.now() + timeoutMs;
  }

  timeoutMs(): number | undefined {
    return this.deadline === undefined ? undefined : this.deadline - Date.now();
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      const controller = (this.controller = new AbortController());
      const remaining = this.timeoutMs();
      if (remaining !== undefined) {
        this.timer = setTimeout(() => controller.abort(new ConnectError("the operation timed out", Code.DeadlineExceeded)), Math.max(remaining, 0));
      }
      if (this.requestSignal.aborted) controller.abort(this.requestSignal.reason);
      else this.requestSignal.addEventListener("abort", () => controller.abort(this.requestSignal.reason), { once: true, signal: controller.signal });
    }
    return this.controller.signal;
  }

  get responseHeader(): Headers {
    return (this.headers ??= new MemoryHeaders());
  }

  get responseTrailer(): Headers {
    return (this.trailers ??= new MemoryHeaders());
  }

  /** The response's headers and trailers as the handler left them (none made when it set none). */
  answer(): { header: Headers; trailer: Headers } {
    return { header: this.headers ?? new MemoryHeaders(), trailer: this.trailers ?? new MemoryHeaders() };
  }

  /** The call has ended: the signal, if one was made, aborts, and its deadline timer stops. */
  finish(): void {
    clearTimeout(this.timer);
    this.controller?.abort(CALL_FINISHED);
  }
}

/** Collects the implementations a `routes(router)` function registers, without serving them. */
function collectImplementations(routes: (router: ConnectRouter) => void): Map<string, Handler> {
  const impls = new Map<string, Handler>();
  const collector = {
    handlers: [],
    service(service: DescService, impl: Record<string, unknown>) {
      for (const method of service.methods) {
        const fn = impl[method.localName];
        if (typeof fn === "function" && SERVED_KINDS.has(method.methodKind)) impls.set(key(service, method), fn.bind(impl) as Handler);
      }
      return collector;
    },
    rpc(method: DescMethod, fn: Handler) {
      if (SERVED_KINDS.has(method.methodKind)) impls.set(key(method.parent, method), fn);
      return collector;
    },
  };
  routes(collector as unknown as ConnectRouter);
  return impls;
}

/** What leaves the server side of a call: a ConnectError, anything else as `internal` (as from a Connect server). */
function toConnectError(err: unknown): ConnectError {
  return err instanceof ConnectError ? err : new ConnectError("internal error", Code.Internal, undefined, undefined, err);
}

function asConnectError(err: unknown): never {
  throw toConnectError(err);
}

/** The one request message of a server-streaming call, as a Connect server insists on it. */
async function singleRequest(messages: AsyncIterable<unknown>, method: DescMethod): Promise<unknown> {
  const it = messages[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) throw new ConnectError(`protocol error: missing input message for ${method.name}`, Code.Unimplemented);
  if (!(await it.next()).done) throw new ConnectError(`protocol error: received extra input message for ${method.name}`, Code.Unimplemented);
  return first.value;
}

/** The messages a server-streaming handler answers, made into the output type, its context ended with the stream. */
async function* handlerStream(output: AsyncIterable<unknown>, desc: DescMessage, ctx: LocalContext): AsyncGenerator<unknown> {
  const it = output[Symbol.asyncIterator]();
  try {
    for (let next = await it.next(); !next.done; next = await it.next()) yield create(desc, next.value as never);
  } finally {
    ctx.finish();
    await it.return?.();
  }
}

/**
 * A stream answered in memory is left when the caller's signal aborts, as soon as its handler
 * next yields: every layer's finally runs (the handler's, closing what it holds; the metrics').
 * A caller of a stream stops reading without telling the iterator (connect's clients drop
 * return()); over the network, the server leaves it when the HTTP/2 stream is reset.
 */
function leftOnAbort<R extends StreamResponse>(res: R, signal: AbortSignal): R {
  if (signal === NEVER) return res;
  const it = res.message[Symbol.asyncIterator]();
  const leave = () => void it.return?.(undefined)?.catch(() => undefined);
  if (signal.aborted) leave();
  else signal.addEventListener("abort", leave, { once: true });
  return { ...res, message: { [Symbol.asyncIterator]: () => it } };
}
function chain(next: Next, interceptors: Interceptor[]): Next {
  return interceptors.reduceRight((n, interceptor) => interceptor(n as never) as unknown as Next, next);
}

/** A call's request as a Connect server's interceptors see one, marked as made in memory. */
function localRequest(
  method: DescMethod,
  stream: boolean,
  message: unknown,
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
  header: HeadersInit | undefined,
  contextValues: ReturnType<typeof createContextValues> | undefined,
): LocalRequest {
  const values = contextValues ?? createContextValues();
  values.set(inMemoryCall, true);
  return {
    stream,
    service: method.parent,
    method,
    requestMethod: "POST",
    url: `local:/${key(method.parent, method)}`,
    signal: signal ?? NEVER,
    header: new MemoryHeaders(header),
    contextValues: values,
    message,
    timeoutMs,
  } as unknown as LocalRequest;
}

/**
 * A transport to services in this process that hands messages over without serializing them.
 * It runs the same client and server interceptors as a network call, gives handlers a
 * HandlerContext, and turns anything a handler throws that is not a ConnectError into
 * `internal`, as a Connect server does. Unary and server-streaming RPCs (a file answer streams its chunks).
 */
export function createLocalTransport(
  routes: (router: ConnectRouter) => void,
  options: { clientInterceptors: Interceptor[]; serverInterceptors: Interceptor[] },
): Transport {
  const impls = collectImplementations(routes);
  /** The handlers by method descriptor: no name is built per call. */
  const byMethod = new WeakMap<DescMethod, Handler | undefined>();
  const implOf = (req: UnaryRequest | StreamRequest) => {
    if (!byMethod.has(req.method)) byMethod.set(req.method, impls.get(key(req.service, req.method)));
    return byMethod.get(req.method);
  };
  /**
   * The handler of the request's method, with its context (ended once the answer is settled).
   * Chained, not awaited: each layer of a call in memory that awaits costs the call a promise and ticks.
   */
  const dispatch: Next = (req) => {
    const impl = implOf(req);
    if (!impl) return Promise.reject(new ConnectError(`${key(req.service, req.method)} is not implemented`, Code.Unimplemented));
    const ctx = new LocalContext(req.service, req.method, req.url, req.header, req.contextValues, req.signal, (req as LocalRequest).timeoutMs);
    if (req.stream) {
      // A server-streaming handler: its one request, then its messages as they are read.
      return singleRequest(req.message, req.method)
        .then((input) => {
          const output = impl(input, ctx) as AsyncIterable<unknown>;
          const message = handlerStream(output, req.method.output, ctx);
          return { stream: true, service: req.service, method: req.method, header: ctx.responseHeader, trailer: ctx.responseTrailer, message } as StreamResponse;
        })
        .catch((err: unknown) => {
          ctx.finish();
          throw err;
        });
    }
    return answerOf(impl, req.message, ctx).then(
      (message) => {
        ctx.finish();
        return { stream: false, service: req.service, method: req.method, ...ctx.answer(), message: create(req.method.output as DescMessage, message as never) } as UnaryResponse;
      },
      (err: unknown) => {
        ctx.finish();
        throw err;
      },
    );
  };
  // Interceptors are chained once: a call builds no closures of its own.
  const server = chain(dispatch, options.serverInterceptors);
  /** The server side of a call: what is not a ConnectError leaves as `internal`, as from a Connect server. */
  const serverSide: Next = (req) => answerOf(server, req).then((res) => (res.stream ? watchStream(res, toConnectError) : res), asConnectError);
  const call = chain(serverSide, options.clientInterceptors);
  const transport = {
    unary<I extends DescMessage, O extends DescMessage>(
      method: DescMethod & { input: I; output: O },
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeadersInit | undefined,
      input: MessageInitShape<I>,
      contextValues?: ReturnType<typeof createContextValues>,
    ): Promise<UnaryResponse<I, O>> {
      try {
        return call(localRequest(method, false, create(method.input, input), signal, timeoutMs, header, contextValues)) as unknown as Promise<UnaryResponse<I, O>>;
      } catch (err) {
        return Promise.reject(err);
      }
    },
    stream<I extends DescMessage, O extends DescMessage>(
      method: DescMethod & { input: I; output: O },
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeadersInit | undefined,
      input: AsyncIterable<MessageInitShape<I>>,
      contextValues?: ReturnType<typeof createContextValues>,
    ): Promise<StreamResponse<I, O>> {
      try {
        if (!SERVED_KINDS.has(method.methodKind)) throw new ConnectError(`${method.methodKind} RPCs are not served in memory`, Code.Unimplemented);
        async function* messages() {
          for await (const message of input) yield create(method.input, message);
        }
        const request = localRequest(method, true, messages(), signal, timeoutMs, header, contextValues);
        return call(request).then((res) => leftOnAbort(res as StreamResponse, request.signal)) as unknown as Promise<StreamResponse<I, O>>;
      } catch (err) {
        return Promise.reject(err);
      }
    },
  };
  return transport as unknown as Transport;
}
