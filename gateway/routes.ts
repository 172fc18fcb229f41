import { getOption, type DescField, type DescMethod, type DescService } from "@bufbuild/protobuf";
import { Family, family as familyOption, route as routeOption, type Route } from "../gen/gateway/v1/annotations_pb.js";
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
  option: Route;
  /** The response field that is the body, when the route names one. */
  responseField?: DescField;
  /** The request field that takes the body; undefined with `body: "*"` or no body. */
  bodyField?: DescField;
}

const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);

function toFastifyPath(template: string): { path: string; variables: string[] } {
  const variables: string[] = [];
  const path = template.replace(/\{([a-z_][a-z0-9_]*)\}/g, (_m, name: string) => {
    variables.push(name);
    return `:${name}`;
  });
  return { path, variables };
}

/** Reads every routed RPC of the given services; RPCs without the option are internal. */
export function collectRoutes(services: DescService[]): RestRoute[] {
  const routes: RestRoute[] = [];
  for (const service of services) {
    const owner = service.file.proto.package.split(".")[0] as ServiceName;
    for (const method of service.methods) {
      if (method.methodKind !== "unary") continue;
      const option = getOption(method, routeOption);
      if (!option.path) continue;
      const where = `${service.typeName}.${method.name}`;
      if (!SERVICE_NAMES.includes(owner)) throw new Error(`${where}: package ${service.file.proto.package} names no service`);
      const httpMethod = option.method.toUpperCase();
      if (!METHODS.has(httpMethod)) throw new Error(`${where}: unsupported method ${option.method}`);
      const family = getOption(service, familyOption);
      if (family === Family.UNSPECIFIED) throw new Error(`${service.typeName}: routed service without (gateway.v1.family)`);
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
      routes.push({
        service,
        method,
        owner,
        family,
        httpMethod,
        paths: templates.map((t) => t.path),
        pathVariables,
        option,
        bodyField,
        responseField,
      });
    }
  }
  return routes;
}
