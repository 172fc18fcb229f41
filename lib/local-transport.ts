import { create, type DescMessage, type DescMethod, type DescService, type MessageInitShape } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  createContextValues,
  createHandlerContext,
  type ConnectRouter,
  type HandlerContext,
  type Interceptor,
  type Transport,
  type UnaryRequest,
  type UnaryResponse,
} from "@connectrpc/connect";

type UnaryHandler = (request: unknown, context: HandlerContext) => Promise<unknown> | unknown;
type Next = (req: UnaryRequest) => Promise<UnaryResponse>;

/** Why a finished call's context is aborted: one shared reason (an AbortError per call cost a stack trace each). */
const CALL_FINISHED = new ConnectError("the call has finished", Code.Canceled);

const key = (service: DescService, method: { name: string }) => `${service.typeName}/${method.name}`;

/** Collects the implementations a `routes(router)` function registers, without serving them. */
function collectImplementations(routes: (router: ConnectRouter) => void): Map<string, UnaryHandler> {
  const impls = new Map<string, UnaryHandler>();
  const collector = {
    handlers: [],
    service(service: DescService, impl: Record<string, unknown>) {
      for (const method of service.methods) {
        const fn = impl[method.localName];
        if (typeof fn === "function" && method.methodKind === "unary") impls.set(key(service, method), fn.bind(impl) as UnaryHandler);
      }
      return collector;
    },
    rpc(method: DescMethod, fn: UnaryHandler) {
      if (method.methodKind === "unary") impls.set(key(method.parent, method), fn);
      return collector;
    },
  };
  routes(collector as unknown as ConnectRouter);
  return impls;
}

function chain(next: Next, interceptors: Interceptor[]): Next {
  return interceptors.reduceRight((n, interceptor) => interceptor(n as never) as unknown as Next, next);
}

/**
 * A transport to services in this process that hands messages over without serializing them.
 * It runs the same client and server interceptors as a network call, gives handlers a
 * HandlerContext, and turns anything a handler throws that is not a ConnectError into
 * `internal`, as a Connect server does. Unary RPCs only (the services have no streams).
 */
export function createLocalTransport(
  routes: (router: ConnectRouter) => void,
  options: { clientInterceptors: Interceptor[]; serverInterceptors: Interceptor[] },
): Transport {
  const impls = collectImplementations(routes);
  const transport = {
    async unary<I extends DescMessage, O extends DescMessage>(
      method: DescMethod & { input: I; output: O },
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeadersInit | undefined,
      input: MessageInitShape<I>,
      contextValues?: ReturnType<typeof createContextValues>,
    ): Promise<UnaryResponse<I, O>> {
      const impl = impls.get(key(method.parent, method));
      const handle: Next = async (req) => {
        if (!impl) throw new ConnectError(`${key(method.parent, method)} is not implemented`, Code.Unimplemented);
        const ctx = createHandlerContext({
          service: method.parent,
          method,
          protocolName: "local",
          requestMethod: "POST",
          url: req.url,
          requestHeader: req.header,
          contextValues: req.contextValues,
          requestSignal: req.signal,
          timeoutMs,
        });
        try {
          const output = await impl(req.message, ctx);
          return { stream: false, service: method.parent, method, header: ctx.responseHeader, trailer: ctx.responseTrailer, message: create(method.output, output as never) } as UnaryResponse;
        } finally {
          // Releases the context's deadline timer, which would otherwise keep the process alive.
          ctx.abort(CALL_FINISHED);
        }
      };
      const server = chain(handle, options.serverInterceptors);
      const serverSide: Next = async (req) => {
        try {
          return await server(req);
        } catch (err) {
          throw err instanceof ConnectError ? err : new ConnectError("internal error", Code.Internal, undefined, undefined, err);
        }
      };
      const request = {
        stream: false,
        service: method.parent,
        method,
        requestMethod: "POST",
        url: `local:/${key(method.parent, method)}`,
        signal: signal ?? new AbortController().signal,
        header: new Headers(header),
        contextValues: contextValues ?? createContextValues(),
        message: create(method.input, input),
      } as unknown as UnaryRequest;
      return (await chain(serverSide, options.clientInterceptors)(request)) as unknown as UnaryResponse<I, O>;
    },
    async stream(): Promise<never> {
      throw new ConnectError("streaming RPCs are not served in-process", Code.Unimplemented);
    },
  };
  return transport as unknown as Transport;
}
