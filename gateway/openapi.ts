import { ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { FeatureSet_FieldPresence } from "@bufbuild/protobuf/wkt";
import { Family } from "../gen/gateway/v1/annotations_pb.js";
import type { RestRoute } from "./routes.js";
import { unavailablePaths } from "./unavailable.js";

type Schema = Record<string, unknown>;

function scalarSchema(type: ScalarType): Schema {
  switch (type) {
    case ScalarType.STRING:
      return { type: "string" };
    case ScalarType.BOOL:
      return { type: "boolean" };
    case ScalarType.BYTES:
      return { type: "string", format: "byte" };
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return { type: "number" };
    default:
      return { type: "integer" };
  }
}

function messageSchema(desc: DescMessage, components: Record<string, Schema>): Schema {
  switch (desc.typeName) {
    case "google.protobuf.Timestamp":
      return { type: "string", format: "date-time" };
    case "google.protobuf.Struct":
      return { type: "object", additionalProperties: true };
    case "google.protobuf.Value":
      return {};
  }
  const name = desc.typeName;
  if (!components[name]) {
    components[name] = {};
    const properties: Record<string, Schema> = {};
    for (const f of desc.fields) properties[f.name] = fieldSchema(f, components);
    components[name] = { type: "object", properties };
  }
  return { $ref: `#/components/schemas/${name}` };
}

function fieldSchema(field: DescField, components: Record<string, Schema>): Schema {
  const item = (): Schema =>
    field.message ? messageSchema(field.message, components) : field.scalar !== undefined ? scalarSchema(field.scalar) : { type: "integer" };
  if (field.fieldKind === "list") return { type: "array", items: item() };
  if (field.fieldKind === "map") return { type: "object", additionalProperties: item() };
  const schema = item();
  const nullable = field.fieldKind === "message" || field.presence === FeatureSet_FieldPresence.EXPLICIT;
  return nullable ? { anyOf: [schema, { type: "null" }] } : schema;
}

/** The body of a route's answer: its response field, or the response without what goes into headers. */
function responseSchema(route: RestRoute, components: Record<string, Schema>): Schema {
  if (route.responseField) return fieldSchema(route.responseField, components);
  if (route.headerFields.length === 0) return messageSchema(route.method.output, components);
  const inHeaders = new Set(route.headerFields.map((h) => h.field));
  const properties: Record<string, Schema> = {};
  for (const f of route.method.output.fields) if (!inHeaders.has(f)) properties[f.name] = fieldSchema(f, components);
  return { type: "object", properties };
}

/** The form a route with `multipart_file` also takes: its part of the field's name, binary (none for other routes). */
function formUpload(route: RestRoute): Record<string, Schema> {
  if (!route.upload) return {};
  const { field, maxBytes } = route.upload;
  const file = { type: "string", format: "binary", description: `At most ${maxBytes} bytes; in a JSON body instead, base64.` };
  return { "multipart/form-data": { schema: { type: "object", properties: { [field.name]: file }, required: [field.name] } } };
}

const ERROR_SCHEMA: Record<Family, Schema> = {
  [Family.UNSPECIFIED]: {},
  [Family.HIRING]: { type: "object", properties: { error: { type: "object", properties: { type: { type: "string" } } } } },
  [Family.TRACKING]: { type: "string" },
};

const TIME_TRACKING_AUTH =
  "HTTP Basic with `email:password`, or with `<api_token>:api_token` (the API token is on the profile page, `/profile`, and in `GET /api/v9/me`); " +
  "or the session cookie `__Secure-accounts-session` that signing in sets (`POST /api/sessions`, the sign-in page). " +
  "Failed authentication answers 403 with the JSON string `\"Incorrect username and/or password\"`. " +
  "A write authenticated by the session cookie must come from a page of this installation (`Sec-Fetch-Site`/`Origin`); every request body is JSON with `Content-Type: application/json` (415 otherwise), " +
  "but for the uploads that take `multipart/form-data`, which the browser must say come from a page of this installation.";

/** The API families, in the reference's order: each operation is listed under its family, which says how it authenticates. */
const FAMILY_TAGS = [
  {
    name: "Hiring export",
    description:
      "The hiring export API (`/api/v2`, `/api/v2.2`): openings, candidates, categories, tags, with seek pagination (`links.next`). " +
      "Authentication: `Authorization: Bearer <key id>.<secret>`, a workspace's API key made with `npm run admin -- hire:key create` (or `hire:workspace create`). " +
      'Failure answers 401 `{"error":{"type":"UnauthorizedError"}}`; errors are `{"error":{"type"}}`.',
  },
  { name: "Time tracking", description: `The time-tracking API (\`/api/v9\`): workspaces, clients, projects, tasks, tags, time entries and more. Authentication: ${TIME_TRACKING_AUTH} Errors are JSON strings.` },
  {
    name: "Reports",
    description: `The Reports API v3 (\`/reports/api/v3\`) and insights (\`/insights/api/v1\`): summary, detailed and weekly reports as JSON, CSV, XLSX and PDF. Authentication as time tracking: ${TIME_TRACKING_AUTH} A public saved report is read with its token alone.`,
  },
  { name: "Webhooks", description: `Webhook subscriptions of a workspace (\`/webhooks/api/v1\`). Authentication as time tracking: ${TIME_TRACKING_AUTH} Validation links need none.` },
  {
    name: "Accounts",
    description: `Sign-up, sessions, the caller's profile and API token, password reset, organizations, workspaces, members, groups and invitations. Signing up, signing in, password reset and reading an invitation by its code need no credentials; the rest: ${TIME_TRACKING_AUTH}`,
  },
  { name: "Not available self-hosted", description: "Operations of the hosted service this installation does not offer: each answers 501 with a JSON string saying so." },
];

/** The family an operation is listed under: by its path, then by the service that owns it. */
function familyTag(route: RestRoute): string {
  const path = route.paths[0];
  if (route.family === Family.HIRING) return "Hiring export";
  if (/^\/(reports|insights)\//.test(path)) return "Reports";
  if (path.startsWith("/webhooks/")) return "Webhooks";
  return route.owner === "accounts" ? "Accounts" : "Time tracking";
}

/** An OpenAPI 3.1 document of the REST surface, built from the same route table the gateway serves. */
export function openApiDocument(routes: RestRoute[]): Schema {
  const components: Record<string, Schema> = {};
  const paths: Record<string, Record<string, Schema>> = {};
  for (const route of routes) {
    const input = route.method.input;
    const inBody = (f: DescField) => route.option.body === "*" || f.name === route.option.body;
    const parameters = input.fields
      .filter((f) => route.pathVariables.includes(f.name) || (!inBody(f) && route.httpMethod === "GET") || (!inBody(f) && !route.option.body))
      .map((f) => ({
        name: f.name,
        in: route.pathVariables.includes(f.name) ? "path" : "query",
        required: route.pathVariables.includes(f.name),
        schema: f.fieldKind === "list" ? { type: "string", description: "comma-separated" } : fieldSchema(f, components),
      }));
    let requestBody: Schema | undefined;
    if (route.option.body === "*") {
      const properties: Record<string, Schema> = {};
      for (const f of input.fields) if (!route.pathVariables.includes(f.name)) properties[f.name] = fieldSchema(f, components);
      requestBody = { content: { ...formUpload(route), "application/json": { schema: { type: "object", properties } } } };
    } else if (route.bodyField) {
      requestBody = { content: { ...formUpload(route), "application/json": { schema: fieldSchema(route.bodyField, components) } } };
    }
    const headers = Object.fromEntries(route.headerFields.map(({ field, header }) => [header, { schema: fieldSchema(field, components) }]));
    const success = route.file
      ? {
          description: "The file, as an attachment",
          headers: { "Content-Disposition": { schema: { type: "string" } } },
          content: { [route.file.contentType]: { schema: { type: "string", format: "binary" } } },
        }
      : {
          description: "OK",
          ...(route.headerFields.length ? { headers } : {}),
          ...(route.option.emptyBody ? {} : { content: { "application/json": { schema: responseSchema(route, components) } } }),
        };
    const operation: Schema = {
      operationId: `${route.service.name}.${route.method.name}`,
      tags: [familyTag(route)],
      security: route.public ? [] : route.family === Family.HIRING ? [{ bearer: [] }] : [{ basic: [] }, { session: [] }],
      parameters,
      ...(requestBody ? { requestBody } : {}),
      responses: {
        [String(route.option.status || 200)]: success,
        default: { description: "Error", content: { "application/json": { schema: ERROR_SCHEMA[route.family] } } },
      },
    };
    for (const p of route.paths) {
      const template = p.replace(/:([a-z_][a-z0-9_]*)/g, "{$1}");
      (paths[template] ??= {})[route.httpMethod.toLowerCase()] = operation;
    }
  }
  for (const [path, item] of Object.entries(unavailablePaths())) paths[path] = { ...(item as Record<string, Schema>), ...paths[path] };
  return {
    openapi: "3.1.0",
    info: {
      title: "workhub REST API",
      version: "1",
      description: "The REST surface of this installation, built from the route table the gateway serves. Operations are grouped by API family; each family says how it authenticates.",
    },
    tags: FAMILY_TAGS,
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "Hiring export: a workspace's API key, `<key id>.<secret>`." },
        basic: { type: "http", scheme: "basic", description: "Time tracking, reports, webhooks, accounts: `email:password` or `<api_token>:api_token`." },
        session: { type: "apiKey", in: "cookie", name: "__Secure-accounts-session", description: "The session cookie a sign-in sets; writes with it must come from this installation's pages." },
      },
    },
  };
}
