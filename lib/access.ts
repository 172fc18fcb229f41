import { getOption, hasOption, type DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, createContextKey, type ContextValues, type HandlerContext, type Interceptor, type StreamRequest, type UnaryRequest, type UnaryResponse, type StreamResponse } from "@connectrpc/connect";
import { access as accessOption, default_access as defaultAccessOption, Scope, type Access, type Refusal } from "../gen/gateway/v1/annotations_pb.js";
import { badRequest, forbidden, hiringError, notFound, paymentRequired } from "./errors.js";
import { callerKey } from "./identity.js";
import { firstRequest } from "./interceptors.js";

/**
 * Access declared in the contract: every RPC carries a `(gateway.v1.access)` option naming the
 * scope it acts in and what it requires there. A service's access interceptor resolves it before
 * the handler runs, refusing with the declared answers, and hands the handler the resolved scope
 * (`scopeOf`). Handlers never check access themselves.
 */

const declarations = new WeakMap<DescMethod, Access>();

/**
 * The access an RPC declares, else its service's `default_access`; an RPC with neither is a
 * contract error (the contract tests find it first).
 */
export function accessOf(method: DescMethod): Access {
  let declared = declarations.get(method);
  if (!declared) {
    if (hasOption(method, accessOption)) declared = getOption(method, accessOption);
    else if (hasOption(method.parent, defaultAccessOption)) declared = getOption(method.parent, defaultAccessOption);
    else throw new Error(`${method.parent.typeName}.${method.name} declares no (gateway.v1.access) and its service no (gateway.v1.default_access)`);
    declarations.set(method, declared);
  }
  return declared;
}

/** Whether an RPC's access is declared (by itself or its service's default). */
export function declaresAccess(method: DescMethod): boolean {
  return hasOption(method, accessOption) || hasOption(method.parent, defaultAccessOption);
}

/** The request field that names the workspace or organization of a scope. */
export const SCOPE_FIELD: Partial<Record<Scope, string>> = {
  [Scope.WORKSPACE]: "workspace_id",
  [Scope.ORGANIZATION]: "organization_id",
};

/** The error a declared refusal answers, or `fallback` when the declaration gives none. */
export function refusal(declared: Refusal | undefined, fallback: () => ConnectError): ConnectError {
  if (!declared) return fallback();
  switch (declared.status) {
    case 400:
      return badRequest(declared.message);
    case 402:
      return paymentRequired(declared.message);
    case 404:
      return notFound(declared.message);
    default:
      return forbidden(declared.message || undefined);
  }
}

/**
 * How one service resolves the scopes its RPCs declare: each resolver answers the value its handlers
 * are handed, or throws the declared refusal. A scope without a resolver hands the caller's user id
 * (user) or nothing; one that needs a resolver the service lacks is an internal error.
 */
export interface ScopeResolvers {
  user?: (userId: bigint) => unknown;
  workspace?: (userId: bigint, workspaceId: bigint, access: Access) => Promise<unknown>;
  organization?: (userId: bigint, organizationId: bigint, access: Access) => Promise<unknown>;
}

const resolvedScope = createContextKey<unknown>(undefined, { description: "the scope the RPC declares, resolved" });

/** The hiring workspace of the caller's API key (RPCs declared SCOPE_HIRING_KEY). */
export const hiringWorkspace = (ctx: HandlerContext) => scopeOf<string>(ctx);

/** The scope the call's declaration resolved to (what the service's resolver answered). */
export function scopeOf<S>(ctx: HandlerContext): S {
  const scope = ctx.values.get(resolvedScope);
  if (scope === undefined) throw new ConnectError(`${ctx.method.name}: no scope was resolved for this RPC`, Code.Internal);
  return scope as S;
}

function userOf(values: ContextValues): bigint {
  const id = values.get(callerKey).userId;
  if (id === undefined) throw new ConnectError("authentication required", Code.Unauthenticated);
  return id;
}

/** The id the request's scope field holds (the contract tests check every scoped request has it). */
const idIn = (message: object, field: "workspaceId" | "organizationId") => (message as Record<string, bigint>)[field];

type Next = (req: UnaryRequest | StreamRequest) => Promise<UnaryResponse | StreamResponse>;

/**
 * The interceptor that enforces the declarations: after the internal token and the field limits,
 * before the handler. Checks only hand on the next layer's promise (no async layer of its own).
 */
export function accessInterceptor(resolvers: ScopeResolvers): Interceptor {
  const missingResolver = (req: UnaryRequest | StreamRequest) => new ConnectError(`${req.method.name}: this service resolves no ${Scope[accessOf(req.method).scope]} scope`, Code.Internal);
  /** Resolves the declared scope for a request whose message is `message`, then calls on. */
  const enforce = (next: Next, req: UnaryRequest | StreamRequest, declared: Access, message: object | undefined): Promise<UnaryResponse | StreamResponse> => {
    try {
      switch (declared.scope) {
        case Scope.PUBLIC:
        case Scope.INTERNAL:
          // The internal token guards every network call; these need nothing more.
          return next(req);
        case Scope.HIRING_KEY: {
          // The gateway verified the key and names its workspace.
          const workspace = req.contextValues.get(callerKey).hiringWorkspaceId;
          if (!workspace) throw hiringError.unauthorized();
          req.contextValues.set(resolvedScope, workspace);
          return next(req);
        }
        case Scope.USER: {
          const userId = userOf(req.contextValues);
          req.contextValues.set(resolvedScope, resolvers.user ? resolvers.user(userId) : userId);
          return next(req);
        }
        case Scope.WORKSPACE:
        case Scope.ORGANIZATION: {
          const userId = userOf(req.contextValues);
          const workspace = declared.scope === Scope.WORKSPACE;
          const resolve = workspace ? resolvers.workspace : resolvers.organization;
          if (!resolve) throw missingResolver(req);
          return resolve(userId, idIn(message!, workspace ? "workspaceId" : "organizationId"), declared).then((scope) => {
            req.contextValues.set(resolvedScope, scope);
            return next(req);
          });
        }
        default:
          throw new ConnectError(`${req.method.name}: unknown access scope`, Code.Internal);
      }
    } catch (err) {
      return Promise.reject(err);
    }
  };
  return (next) => (req) => {
    let declared: Access;
    try {
      declared = accessOf(req.method);
    } catch (err) {
      return Promise.reject(err);
    }
    if (!req.stream) return enforce(next, req, declared, req.message);
    // A streaming call's scope is in its (first) request message: read before the handler runs.
    if (!SCOPE_FIELD[declared.scope]) return enforce(next, req, declared, undefined);
    return firstRequest(req).then(([message, replayed]) => enforce(next, replayed, declared, message));
  };
}
