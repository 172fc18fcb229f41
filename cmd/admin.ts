import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { toJson, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import { loadConfig } from "../lib/config.js";
import { Directory } from "../lib/directory.js";
import { mailListing } from "../lib/mailer.js";
import {
  HiringAdminService,
  CreateWorkspaceResponseSchema,
  CreateApiKeyResponseSchema,
  ImportResponseSchema,
  RecordFinishedTestResponseSchema,
  UpdateCandidateResponseSchema,
} from "../gen/hiring/v1/admin_pb.js";
import { loadSynthetic } from "../services/hiring/synthetic.js";
import { IdentityService } from "../gen/accounts/v1/accounts_pb.js";
import { OrganizationAdminService } from "../gen/accounts/v1/organizations_pb.js";
import { ImportSchema } from "../gen/tracking/v1/imports_pb.js";
import { runTrackImport } from "./track-import.js";
import {
  WebhookAdminService,
  CreateSubscriptionResponseSchema,
  ListSubscriptionsResponseSchema,
  ListDeliveryAttemptsResponseSchema,
  ListNotificationsResponseSchema,
  ReplayNotificationResponseSchema,
  GetMetricsResponseSchema,
} from "../gen/notifier/v1/webhooks_pb.js";

/**
 * `npm run -s admin -- <command>`: what the hiring application and operators do, over the
 * services' internal Connect RPCs of the running system. JSON on stdout.
 */

export class UsageError extends Error {}

/** One option of a command. Every option takes a value (`--name value` or `--name=value`). */
export interface OptionSpec {
  /** How the usage names the value: `<id>`, `<true|false>`. */
  value: string;
  required?: boolean;
  /** Taken when the option is left out. */
  default?: string;
  /** The only values allowed. */
  choices?: readonly string[];
  /** A whole number from `min` (to `max`). */
  integer?: { min: number; max?: number };
  /** A switch that takes no value: given, it reads "true". */
  flag?: boolean;
}

type OptionSpecs = Record<string, OptionSpec>;

/** The options as a command reads them: present when required or defaulted. */
type OptionValues<O extends OptionSpecs> = {
  [K in keyof O]: O[K] extends { required: true } | { default: string } ? string : string | undefined;
};

type Printable = { schema: DescMessage; message: MessageShape<DescMessage> };
const out = <D extends DescMessage>(schema: D, message: MessageShape<D>): Printable => ({ schema, message });

/** A command: its options, its one positional argument if it takes one, and what it does with them. */
export interface Command<O extends OptionSpecs = OptionSpecs> {
  options: O;
  /** The positional argument (always required), as the usage names it. */
  positional?: string;
  /** The positional may be given several times (`positionals` holds them all). */
  variadic?: boolean;
  run(args: { options: OptionValues<O>; positional: string; positionals?: string[] }, directory: Directory): Promise<Printable | Record<string, unknown>>;
}

/** Declares a command, keeping its option names in the type of what `run` reads. */
const command = <const O extends OptionSpecs>(c: Command<O>): Command => c;

function readJsonFile(path: string): Record<string, unknown> {
  const parsed = JSON.parse(readFileSync(path, "utf8"));
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new UsageError(`${path}: expected a JSON object`);
  return parsed;
}

/** `none` clears a field of the candidate. */
const orNone = (v: string | undefined) => (v === "none" ? "" : v);

export const COMMANDS: Record<string, Command> = {
  "hire:workspace create": command({
    options: { name: { value: "<name>", required: true } },
    run: async ({ options }, d) => out(CreateWorkspaceResponseSchema, await d.client("hiring", HiringAdminService).createWorkspace({ name: options.name })),
  }),
  "hire:key create": command({
    options: { workspace: { value: "<id>", required: true } },
    run: async ({ options }, d) => out(CreateApiKeyResponseSchema, await d.client("hiring", HiringAdminService).createApiKey({ workspaceId: options.workspace })),
  }),
  "hire:key revoke": command({
    options: { key: { value: "<api key id>", required: true } },
    run: async ({ options }, d) => {
      await d.client("hiring", HiringAdminService).revokeApiKey({ apiKeyId: options.key });
      return { revoked: options.key };
    },
  }),
  "hire:import": command({
    options: { workspace: { value: "<id>", required: true } },
    positional: "file.json",
    run: async ({ options, positional }, d) =>
      out(ImportResponseSchema, await d.client("hiring", HiringAdminService).import({ workspaceId: options.workspace, json: JSON.stringify(readJsonFile(positional)) })),
  }),
  "hire:test record": command({
    options: { workspace: { value: "<id>", required: true }, candidate: { value: "<id>", required: true } },
    positional: "test.json",
    run: async ({ options, positional }, d) =>
      out(
        RecordFinishedTestResponseSchema,
        await d.client("hiring", HiringAdminService).recordFinishedTest({
          workspaceId: options.workspace,
          candidateId: options.candidate,
          test: readJsonFile(positional) as never,
        }),
      ),
  }),
  "hire:candidate update": command({
    options: {
      workspace: { value: "<id>", required: true },
      candidate: { value: "<id>", required: true },
      // The hiring service keeps the range (0 to 3) and the hire states.
      rating: { value: "0-3", integer: { min: 0 } },
      "hire-state": { value: "<possible-hire|rejected|none>" },
      category: { value: "<id|none>" },
      tags: { value: "<id,id|none>" },
    },
    run: async ({ options }, d) => {
      const tags = orNone(options.tags);
      return out(
        UpdateCandidateResponseSchema,
        await d.client("hiring", HiringAdminService).updateCandidate({
          workspaceId: options.workspace,
          candidateId: options.candidate,
          rating: options.rating === undefined ? undefined : Number(options.rating),
          hireState: orNone(options["hire-state"]),
          categoryId: orNone(options.category),
          tagIds: tags === undefined ? undefined : { ids: tags.split(",").filter((t) => t !== "") },
        }),
      );
    },
  }),
  "hire:generate": command({
    options: {
      workspace: { value: "<id>", required: true },
      candidates: { value: "<n>", required: true, integer: { min: 1, max: 1_000_000 } },
      seed: { value: "<n>", default: "1", integer: { min: 1, max: 1_000_000 } },
      chunk: { value: "<n>", default: "1000", integer: { min: 1, max: 5000 } },
    },
    run: async ({ options }, d) => {
      const started = Date.now();
      const hiring = d.client("hiring", HiringAdminService);
      const loaded = await loadSynthetic(
        (data) => hiring.import({ workspaceId: options.workspace, json: JSON.stringify(data) }),
        { candidates: Number(options.candidates), seed: Number(options.seed), chunk: Number(options.chunk) },
        progressBar("candidates"),
      );
      return { workspace_id: options.workspace, ...loaded, seconds: Math.round((Date.now() - started) / 100) / 10 };
    },
  }),
  // The plan is the organization's: this sets the plan of the workspace's organization.
  "track:workspace plan": command({
    options: {
      workspace: { value: "<id>", required: true, integer: { min: 1 } },
      premium: { value: "<true|false>", required: true, choices: ["true", "false"] },
    },
    run: async ({ options }, d) => {
      const premium = options.premium === "true";
      await d.client("accounts", IdentityService).setWorkspacePlan({ workspaceId: BigInt(options.workspace), premium });
      return { workspace_id: Number(options.workspace), premium };
    },
  }),
  "track:organization plan": command({
    options: {
      organization: { value: "<id>", required: true, integer: { min: 1 } },
      paid: { value: "<true|false>", required: true, choices: ["true", "false"] },
    },
    run: async ({ options }, d) => {
      const paid = options.paid === "true";
      const { pricingPlanId } = await d.client("accounts", OrganizationAdminService).setOrganizationPlan({ organizationId: BigInt(options.organization), paid });
      return { organization_id: Number(options.organization), paid, pricing_plan_id: Number(pricingPlanId) };
    },
  }),
  "webhook:add": command({
    options: {
      service: { value: "<hiring|accounts|tracking>", required: true },
      workspace: { value: "<id>", required: true },
      url: { value: "<url>", required: true },
      entity: { value: "<e>", default: "*" },
      action: { value: "<a>", default: "*" },
      description: { value: "<text>", default: "" },
    },
    run: async ({ options }, d) =>
      out(
        CreateSubscriptionResponseSchema,
        await d.client("notifier", WebhookAdminService).createSubscription({
          service: options.service,
          workspaceId: options.workspace,
          url: options.url,
          description: options.description,
          eventFilters: [{ entity: options.entity, action: options.action }],
        }),
      ),
  }),
  "webhook:list": command({
    options: { service: { value: "<name>", required: true }, workspace: { value: "<id>", required: true } },
    run: async ({ options }, d) =>
      out(ListSubscriptionsResponseSchema, await d.client("notifier", WebhookAdminService).listSubscriptions({ service: options.service, workspaceId: options.workspace })),
  }),
  "hire:webhook add": command({
    options: {
      workspace: { value: "<hiring workspace id>", required: true },
      url: { value: "<url>", required: true },
      events: { value: "candidate/test.finished,candidate/updated" },
      description: { value: "<text>", default: "" },
    },
    run: async ({ options }, d) =>
      out(
        CreateSubscriptionResponseSchema,
        await d.client("notifier", WebhookAdminService).createSubscription({
          service: "hiring",
          workspaceId: options.workspace,
          url: options.url,
          description: options.description,
          eventFilters: webhookEvents(options.events),
        }),
      ),
  }),
  "hire:webhook list": command({
    options: { workspace: { value: "<hiring workspace id>", required: true } },
    run: async ({ options }, d) =>
      out(ListSubscriptionsResponseSchema, await d.client("notifier", WebhookAdminService).listSubscriptions({ service: "hiring", workspaceId: options.workspace })),
  }),
  "hire:webhook remove": command({
    options: { subscription: { value: "<id>", required: true } },
    run: async ({ options }, d) => {
      await d.client("notifier", WebhookAdminService).deleteSubscription({ subscriptionId: options.subscription });
      return { removed: options.subscription };
    },
  }),
  "webhook:log": command({
    options: {
      limit: { value: "<n>", default: "100", integer: { min: 0 } },
      before: { value: "<attempt id>", default: "0", integer: { min: 0 } },
    },
    positional: "subscription id",
    run: async ({ options, positional }, d) =>
      out(
        ListDeliveryAttemptsResponseSchema,
        await d.client("notifier", WebhookAdminService).listDeliveryAttempts({
          subscriptionId: positional,
          limit: Number(options.limit),
          beforeAttemptId: BigInt(options.before),
        }),
      ),
  }),
  "webhook:notifications": command({
    options: {
      state: { value: "<pending|delivered|given_up>", default: "" },
      limit: { value: "<n>", default: "100", integer: { min: 0 } },
    },
    positional: "subscription id",
    run: async ({ options, positional }, d) =>
      out(
        ListNotificationsResponseSchema,
        await d.client("notifier", WebhookAdminService).listNotifications({ subscriptionId: positional, state: options.state, limit: Number(options.limit) }),
      ),
  }),
  "webhook:replay": command({
    options: {},
    positional: "notification id",
    run: async ({ positional }, d) =>
      out(ReplayNotificationResponseSchema, await d.client("notifier", WebhookAdminService).replayNotification({ notificationId: positional })),
  }),
  "webhook:metrics": command({
    options: {},
    run: async (_args, d) => out(GetMetricsResponseSchema, await d.client("notifier", WebhookAdminService).getMetrics({})),
  }),
  // Files in parts to the import RPCs, as the workspace's first admin; a progress bar on stderr.
  "track:import": command({
    options: {
      workspace: { value: "<id>", required: true, integer: { min: 1 } },
      "dry-run": { value: "", flag: true },
      "time-zone": { value: "<IANA zone of the CSV times>" },
    },
    positional: "file",
    variadic: true,
    run: async ({ options, positionals }, d) =>
      out(
        ImportSchema,
        await runTrackImport(d, { workspace: options.workspace, dryRun: options["dry-run"] === "true", timeZone: options["time-zone"], files: positionals ?? [] }, { upload: progressBar("bytes uploaded"), entries: progressBar("time entries") }),
      ),
  }),
  // No RPC: the embedded default delivers mail into files under DATA_DIR/mail, read here in the same environment.
  "mail:list": command({
    options: { limit: { value: "<n>", default: "10", integer: { min: 1, max: 1000 } } },
    run: async ({ options }) => mailListing(loadConfig(), Number(options.limit)),
  }),
};

/** `hire:import --workspace <id> <file.json>`: the required options, the positional, then the optional ones. */
export function usageOf(name: string): string {
  const c = COMMANDS[name];
  const options = Object.entries(c.options);
  return [
    name,
    ...options.filter(([, o]) => o.required).map(([key, o]) => `--${key} ${o.value}`),
    ...(c.positional ? [`<${c.positional}>${c.variadic ? "..." : ""}`] : []),
    ...options.filter(([, o]) => !o.required).map(([key, o]) => (o.flag ? `[--${key}]` : `[--${key} ${o.value}]`)),
  ].join(" ");
}

function allUsages(): string {
  return `usage: npm run -s admin -- <command>\n${Object.keys(COMMANDS)
    .map((name) => `  ${usageOf(name)}`)
    .join("\n")}`;
}

/** Why a value breaks its option's declaration, if it does. */
function valueProblem(key: string, spec: OptionSpec, value: string): string | undefined {
  if (spec.choices && !spec.choices.includes(value)) return `--${key} must be ${spec.choices.join(" or ")}, got ${JSON.stringify(value)}`;
  if (spec.integer) {
    const { min, max } = spec.integer;
    const n = Number(value);
    if (!/^-?\d+$/.test(value) || n < min || (max !== undefined && n > max))
      return `--${key} must be a whole number ${max === undefined ? `of at least ${min}` : `from ${min} to ${max}`}, got ${JSON.stringify(value)}`;
  }
  return undefined;
}

/**
 * Reads a command's arguments as the command declares them (node:util parseArgs, strict): every
 * usage error of the command line (unknown option, missing value or option, bad value) comes from here.
 */
export function readArguments(name: string, argv: string[]): { options: Record<string, string | undefined>; positional: string; positionals?: string[] } {
  const c = COMMANDS[name];
  const fail = (problem: string): never => {
    throw new UsageError(`${problem}\nusage: npm run -s admin -- ${usageOf(name)}`);
  };
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: argv,
      options: Object.fromEntries(Object.entries(c.options).map(([key, o]) => [key, o.flag ? { type: "boolean" as const } : { type: "string" as const, ...(o.default === undefined ? {} : { default: o.default }) }])),
      allowPositionals: c.positional !== undefined,
      strict: true,
    });
  } catch (err) {
    // node:util's own usage errors (ERR_PARSE_ARGS_*) name the option or argument at fault.
    if (String((err as { code?: string }).code).startsWith("ERR_PARSE_ARGS_")) return fail((err as Error).message);
    throw err;
  }
  const options: Record<string, string | undefined> = {};
  for (const [key, spec] of Object.entries(c.options)) {
    const given = parsed.values[key] as string | boolean | undefined;
    const value = given === true ? "true" : given === false ? undefined : given;
    if (value === undefined) {
      if (spec.required) fail(`--${key} is required`);
      continue;
    }
    if (value === "" && spec.required) fail(`--${key} needs a value`);
    const problem = valueProblem(key, spec, value);
    if (problem) fail(problem);
    options[key] = value;
  }
  const [positional, extra] = parsed.positionals;
  if (c.positional && !positional) fail(`<${c.positional}> is required`);
  if (extra !== undefined && !c.variadic) fail(`Unexpected argument '${extra}'`);
  return { options, positional: positional ?? "", ...(c.variadic ? { positionals: parsed.positionals } : {}) };
}

/** `entity/action,entity/action` (an action may hold dots: `candidate/test.finished`); none means every event. */
function webhookEvents(spec: string | undefined): { entity: string; action: string }[] {
  if (!spec) return [];
  return spec.split(",").map((pair) => {
    const slash = pair.indexOf("/");
    if (slash <= 0 || slash === pair.length - 1) throw new UsageError(`--events: expected entity/action, got ${pair}`);
    return { entity: pair.slice(0, slash), action: pair.slice(slash + 1) };
  });
}

/** A progress bar on stderr (redrawn in place on a terminal, a line per tenth otherwise). */
function progressBar(label: string): (done: number, total: number) => void {
  let lastTenth = -1;
  return (done, total) => {
    const ratio = total === 0 ? 1 : done / total;
    if (process.stderr.isTTY) {
      const width = 30;
      const filled = Math.round(ratio * width);
      process.stderr.write(`\r[${"#".repeat(filled)}${".".repeat(width - filled)}] ${(ratio * 100).toFixed(0).padStart(3)}% ${done}/${total} ${label}`);
      if (done >= total) process.stderr.write("\n");
    } else if (Math.floor(ratio * 10) > lastTenth) {
      lastTenth = Math.floor(ratio * 10);
      process.stderr.write(`${(ratio * 100).toFixed(0)}% ${done}/${total} ${label}\n`);
    }
  };
}

/** The command the first words name (two words, else one), and the arguments after them. */
function findCommand(argv: string[]): { name: string; rest: string[] } | undefined {
  for (const words of [2, 1]) {
    const name = argv.slice(0, words).join(" ");
    if (Object.hasOwn(COMMANDS, name)) return { name, rest: argv.slice(words) };
  }
  return undefined;
}

export async function runAdmin(argv: string[], directory: Directory): Promise<unknown> {
  const found = findCommand(argv);
  if (!found) throw new UsageError(`${argv.length > 0 ? `no such command: ${argv.slice(0, 2).join(" ")}\n` : ""}${allUsages()}`);
  const result = await COMMANDS[found.name].run(readArguments(found.name, found.rest), directory);
  return "schema" in result && "message" in result
    ? toJson(result.schema as DescMessage, result.message as never, { useProtoFieldName: true, alwaysEmitImplicit: true })
    : result;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const directory = new Directory(loadConfig());
  try {
    const result = await runAdmin(process.argv.slice(2), directory);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } catch (err) {
    const message = err instanceof UsageError ? err.message : err instanceof ConnectError ? `${err.code}: ${err.rawMessage}` : String((err as Error).message ?? err);
    process.stderr.write(err instanceof UsageError ? `${message}\n` : `${JSON.stringify({ error: message })}\n`);
    process.exitCode = err instanceof UsageError ? 2 : 1;
  }
  // Open HTTP/2 sessions would keep the process alive.
  process.exit();
}
