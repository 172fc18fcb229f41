import { getOption, ScalarType, type DescField, type DescMethod, type DescService } from "@bufbuild/protobuf";
import { Family, Scope, family as familyOption, route as routeOption, type Access, type Route } from "../gen/gateway/v1/annotations_pb.js";
import { FileChunkSchema } from "../gen/gateway/v1/files_pb.js";
import { accessOf } from "../lib/access.js";
import { declaredMaxLength } from "../lib/field-limits.js";
import { SERVICE_NAMES, type ServiceName } from "../lib/config.js";

/** One REST endpoint, read from an RPC's route option. */
export interface RestRoute {
  service: DescService;
  method: DescMethod;
  /** The service that owns the RPC (the first part of its proto package). */
  owner: ServiceName;
  family: Family;
  httpMethod: string;
  /** Fastify path patterns (`:name` variables). */
  paths: string[];
  pathVariables: string[];
  /** The request fields of the path variables, in their order. */
  pathFields: DescField[];
  /** The request fields a query parameter may set: all but the path variables' and the body field. */
  queryFields: DescField[];
  option: Route;
  /** What the RPC acts in and requires (its `(gateway.v1.access)` declaration). */
  access: Access;
  /** The route needs no caller identity (declared SCOPE_PUBLIC). */
  public: boolean;
  /** A public route that hands on the caller's identity when valid credentials come with it (`caller_if_signed_in`). */
  optionalCaller: boolean;
  /** The response field that is the body, when the route names one. */
  responseField?: DescField;
  /** The request field that takes the body; undefined with `body: "*"` or no body. */
  bodyField?: DescField;
  /** Response fields answered as headers (`response_headers`), never in the body. */
  headerFields: ResponseHeader[];
  /** The file the route answers (`file`): a server-streaming RPC of FileChunk messages. */
  file?: FileRoute;
  /** The file a `multipart/form-data` body may carry (`multipart_file`). */
  upload?: UploadRoute;
}

/** A route's multipart upload, read from its `multipart_file` declaration. */
export interface UploadRoute {
  /** The request's bytes field, named as the form's part. */
  field: DescField;
  /** Its declared `max_length`: the most bytes the gateway keeps of the part. */
  maxBytes: number;
}

/** A route's file answer, read from its `file` declaration. */
export interface FileRoute {
  contentType: string;
  /** The declared file name, `{field}` standing for a request field's value. */
  fileName: string;
  /** The request fields the file name names, by their proto names. */
  nameFields: Map<string, DescField>;
}

/** A response field the gateway answers as an HTTP header. */
export interface ResponseHeader {
  field: DescField;
  /** The header's name as the route declares it (`X-Page`). */
  header: string;
}

const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);
/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The `response_headers` of a route: each a scalar response field that is not the body. */
function responseHeaders(where: string, method: DescMethod, option: Route, responseField: DescField | undefined): ResponseHeader[] {
  return Object.entries(option.responseHeaders).map(([name, header]) => {
    const field = method.output.fields.find((f) => f.name === name);
    if (!field) throw new Error(`${where}: response header field ${name} does not exist`);
    if (field.fieldKind !== "scalar") throw new Error(`${where}: response header field ${name} is not a scalar`);
    if (field === responseField) throw new Error(`${where}: response header field ${name} is the response body`);
    if (!HEADER_NAME.test(header)) throw new Error(`${where}: ${JSON.stringify(header)} is no header name`);
    return { field, header };
  });
}

/** A media type with optional parameters (`text/csv; charset=utf-8`). */
const CONTENT_TYPE = /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+(\s*;\s*[\w!#$&^.+-]+=("[^"]*"|[\w!#$&^.+-]+))*$/;

/**
 * The `file` declaration of a route: a server-streaming RPC answering FileChunk messages, a
 * content type, and a file name whose `{field}`s are scalar request fields. A streaming RPC
 * is routed only with it, and it fits no option that shapes a JSON answer.
 */
function fileRoute(where: string, method: DescMethod, option: Route): FileRoute | undefined {
  const { file } = option;
  if (!file) {
    if (method.methodKind !== "unary") throw new Error(`${where}: a streaming RPC is routed only with a file answer (file)`);
    return undefined;
  }
  if (method.methodKind !== "server_streaming") throw new Error(`${where}: a file answer needs a server-streaming RPC`);
  if (method.output.typeName !== FileChunkSchema.typeName) throw new Error(`${where}: a file answer streams ${FileChunkSchema.typeName}, not ${method.output.typeName}`);
  if (!CONTENT_TYPE.test(file.contentType)) throw new Error(`${where}: ${JSON.stringify(file.contentType)} is no content type`);
  if (!file.fileName) throw new Error(`${where}: a file answer declares its file_name`);
  for (const [set, name] of [
    [option.responseBody, "response_body"],
    [option.emptyBody, "empty_body"],
    [Object.keys(option.responseHeaders).length > 0, "response_headers"],
    [option.sessionCookie, "session_cookie"],
    [option.clearSessionCookie, "clear_session_cookie"],
    [option.revokesCredentials, "revokes_credentials"],
  ] as const) {
    if (set) throw new Error(`${where}: a file answer has no ${name}`);
  }
  const nameFields = new Map<string, DescField>();
  for (const [, name] of file.fileName.matchAll(/\{([^}]*)\}/g)) {
    const field = method.input.fields.find((f) => f.name === name);
    if (!field || (field.fieldKind !== "scalar" && field.fieldKind !== "enum")) throw new Error(`${where}: file name field {${name}} is no scalar request field`);
    nameFields.set(name, field);
  }
  return { contentType: file.contentType, fileName: file.fileName, nameFields };
}

/**
 * The `multipart_file` declaration of a route: a bytes request field with a declared max_length,
 * that the route's JSON body also sets (`body: "*"` or the field), on a unary route that writes.
 */
function uploadRoute(where: string, method: DescMethod, option: Route, httpMethod: string): UploadRoute | undefined {
  const name = option.multipartFile;
  if (!name) return undefined;
  const field = method.input.fields.find((f) => f.name === name);
  if (!field || field.fieldKind !== "scalar" || field.scalar !== ScalarType.BYTES) throw new Error(`${where}: multipart_file ${name} is no bytes request field`);
  if (option.body !== "*" && option.body !== name) throw new Error(`${where}: multipart_file ${name} is not in the route's body`);
  if (httpMethod === "GET" || httpMethod === "DELETE" || option.file) throw new Error(`${where}: multipart_file needs a unary POST, PUT or PATCH`);
  return { field, maxBytes: declaredMaxLength(field) };
}

function toFastifyPath(template: string): { path: string; variables: string[] } {
  const variables: string[] = [];
  const path = template.replace(/\{([a-z_][a-z0-9_]*)\}/g, (_m, name: string) => {
    variables.push(name);
    return `:${name}`;
  });
  return { path, variables };
}

/** The scopes a route of each family may declare: the family decides how callers authenticate; internal RPCs are never routed. */
const ROUTED_SCOPES: Record<Family, Scope[]> = {
  [Family.UNSPECIFIED]: [],
  [Family.HIRING]: [Scope.HIRING_KEY, Scope.PUBLIC],
  [Family.TRACKING]: [Scope.PUBLIC, Scope.USER, Scope.WORKSPACE, Scope.ORGANIZATION],
};

/** Reads every routed RPC of the given services; RPCs without the option are internal. */
export function collectRoutes(services: DescService[]): RestRoute[] {
  const routes: RestRoute[] = [];
  for (const service of services) {
    const owner = service.file.proto.package.split(".")[0] as ServiceName;
    for (const method of service.methods) {
      const option = getOption(method, routeOption);
      if (!option.path) continue;
      const where = `${service.typeName}.${method.name}`;
      const file = fileRoute(where, method, option);
      if (!SERVICE_NAMES.includes(owner)) throw new Error(`${where}: package ${service.file.proto.package} names no service`);
      const httpMethod = option.method.toUpperCase();
      if (!METHODS.has(httpMethod)) throw new Error(`${where}: unsupported method ${option.method}`);
      const family = getOption(service, familyOption);
      if (family === Family.UNSPECIFIED) throw new Error(`${service.typeName}: routed service without (gateway.v1.family)`);
      const access = accessOf(method);
      if (!ROUTED_SCOPES[family].includes(access.scope)) throw new Error(`${where}: a ${Family[family]} route cannot act in ${Scope[access.scope]}`);
      const templates = [option.path, ...option.additionalPaths].map(toFastifyPath);
      const pathVariables = templates[0].variables;
      for (const name of pathVariables) {
        if (!method.input.fields.some((f) => f.name === name)) throw new Error(`${where}: path variable {${name}} is no request field`);
      }
      let bodyField: DescField | undefined;
      if (option.body && option.body !== "*") {
        bodyField = method.input.fields.find((f) => f.name === option.body);
        if (!bodyField) throw new Error(`${where}: body field ${option.body} does not exist`);
      }
      let responseField: DescField | undefined;
      if (option.responseBody) {
        responseField = method.output.fields.find((f) => f.name === option.responseBody);
        if (!responseField) throw new Error(`${where}: response field ${option.responseBody} does not exist`);
      }
      const headerFields = responseHeaders(where, method, option, responseField);
      const upload = uploadRoute(where, method, option, httpMethod);
      const pathFields = pathVariables.map((name) => method.input.fields.find((f) => f.name === name)!);
      routes.push({
        service,
        method,
        owner,
        family,
        httpMethod,
        paths: templates.map((t) => t.path),
        pathVariables,
        pathFields,
        queryFields: method.input.fields.filter((f) => !pathFields.includes(f) && f !== bodyField),
        option,
        access,
        public: access.scope === Scope.PUBLIC,
        optionalCaller: access.scope === Scope.PUBLIC && access.callerIfSignedIn,
        bodyField,
        responseField,
        headerFields,
        file,
        upload,
      });
    }
  }
  return routes;
}
