import { readFileSync } from "node:fs";
import { toJson, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import { loadConfig } from "../lib/config.js";
import { Directory } from "../lib/directory.js";
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

export interface Args {
  positional: string[];
  flags: Map<string, string>;
}

export function parseArgs(argv: string[]): Args {
  const positional: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      if (eq > 0) flags.set(a.slice(2, eq), a.slice(eq + 1));
      else if (i + 1 < argv.length && !argv[i + 1].startsWith("--")) flags.set(a.slice(2), argv[++i]);
      else flags.set(a.slice(2), "true");
    } else positional.push(a);
  }
  return { positional, flags };
}

export class UsageError extends Error {}

function flag(args: Args, name: string): string {
  const v = args.flags.get(name);
  if (!v || v === "true") throw new UsageError(`--${name} is required`);
  return v;
}

function readJsonFile(path: string | undefined): Record<string, unknown> {
  if (!path) throw new UsageError("a JSON file is required");
  const parsed = JSON.parse(readFileSync(path, "utf8"));
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new UsageError(`${path}: expected a JSON object`);
  return parsed;
}

type Printable = { schema: DescMessage; message: MessageShape<DescMessage> };
const out = <D extends DescMessage>(schema: D, message: MessageShape<D>): Printable => ({ schema, message });

export type Command = (args: Args, directory: Directory) => Promise<Printable | Record<string, unknown>>;

export const COMMANDS: Record<string, { usage: string; run: Command }> = {
  "hire:workspace create": {
    usage: "hire:workspace create --name <name>",
    run: async (args, d) => out(CreateWorkspaceResponseSchema, await d.client("hiring", HiringAdminService).createWorkspace({ name: flag(args, "name") })),
  },
  "hire:key create": {
    usage: "hire:key create --workspace <id>",
    run: async (args, d) => out(CreateApiKeyResponseSchema, await d.client("hiring", HiringAdminService).createApiKey({ workspaceId: flag(args, "workspace") })),
  },
  "hire:key revoke": {
    usage: "hire:key revoke --key <api key id>",
    run: async (args, d) => {
      await d.client("hiring", HiringAdminService).revokeApiKey({ apiKeyId: flag(args, "key") });
      return { revoked: flag(args, "key") };
    },
  },
  "hire:import": {
    usage: "hire:import --workspace <id> <file.json>",
    run: async (args, d) =>
      out(
        ImportResponseSchema,
        await d.client("hiring", HiringAdminService).import({ workspaceId: flag(args, "workspace"), json: JSON.stringify(readJsonFile(args.positional[0])) }),
      ),
  },
  "hire:test record": {
    usage: "hire:test record --workspace <id> --candidate <id> <test.json>",
    run: async (args, d) =>
      out(
        RecordFinishedTestResponseSchema,
        await d.client("hiring", HiringAdminService).recordFinishedTest({
          workspaceId: flag(args, "workspace"),
          candidateId: flag(args, "candidate"),
          test: readJsonFile(args.positional[0]) as never,
        }),
      ),
  },
  "hire:candidate update": {
    usage: "hire:candidate update --workspace <id> --candidate <id> [--rating 0-3] [--hire-state <possible-hire|rejected|none>] [--category <id|none>] [--tags <id,id|none>]",
    run: async (args, d) => {
      const optional = (name: string) => {
        const v = args.flags.get(name);
        return v === undefined ? undefined : v === "none" ? "" : v;
      };
      const rating = optional("rating");
      if (rating !== undefined && !/^\d+$/.test(rating)) throw new UsageError("--rating must be 0, 1, 2 or 3");
      const tags = optional("tags");
      return out(
        UpdateCandidateResponseSchema,
        await d.client("hiring", HiringAdminService).updateCandidate({
          workspaceId: flag(args, "workspace"),
          candidateId: flag(args, "candidate"),
          rating: rating === undefined ? undefined : Number(rating),
          hireState: optional("hire-state"),
          categoryId: optional("category"),
          tagIds: tags === undefined ? undefined : { ids: tags.split(",").filter((t) => t !== "") },
        }),
      );
    },
  },
  "hire:generate": {
    usage: "hire:generate --workspace <id> --candidates <n> [--seed <n>] [--chunk <n>]",
    run: async (args, d) => {
      const count = (name: string, fallback: string, max: number) => {
        const v = Number(args.flags.get(name) ?? fallback);
        if (!Number.isInteger(v) || v < 1 || v > max) throw new UsageError(`--${name} must be an integer from 1 to ${max}`);
        return v;
      };
      const workspaceId = flag(args, "workspace");
      const candidates = count("candidates", "", 1_000_000);
      const started = Date.now();
      const hiring = d.client("hiring", HiringAdminService);
      const loaded = await loadSynthetic(
        (data) => hiring.import({ workspaceId, json: JSON.stringify(data) }),
        { candidates, seed: count("seed", "1", 1_000_000), chunk: count("chunk", "1000", 5000) },
        progressBar("candidates"),
      );
      return { workspace_id: workspaceId, ...loaded, seconds: Math.round((Date.now() - started) / 100) / 10 };
    },
  },
  "track:workspace plan": {
    usage: "track:workspace plan --workspace <id> --premium <true|false>",
    run: async (args, d) => {
      const premium = flag(args, "premium") === "true";
      await d.client("accounts", IdentityService).setWorkspacePlan({ workspaceId: BigInt(flag(args, "workspace")), premium });
      return { workspace_id: Number(flag(args, "workspace")), premium };
    },
  },
  "webhook:add": {
    usage: "webhook:add --service <hiring|accounts|tracking> --workspace <id> --url <url> [--entity <e>] [--action <a>] [--description <text>]",
    run: async (args, d) =>
      out(
        CreateSubscriptionResponseSchema,
        await d.client("notifier", WebhookAdminService).createSubscription({
          service: flag(args, "service"),
          workspaceId: flag(args, "workspace"),
          url: flag(args, "url"),
          description: args.flags.get("description") ?? "",
          eventFilters: [{ entity: args.flags.get("entity") ?? "*", action: args.flags.get("action") ?? "*" }],
        }),
      ),
  },
  "webhook:list": {
    usage: "webhook:list --service <name> --workspace <id>",
    run: async (args, d) =>
      out(
        ListSubscriptionsResponseSchema,
        await d.client("notifier", WebhookAdminService).listSubscriptions({ service: flag(args, "service"), workspaceId: flag(args, "workspace") }),
      ),
  },
  "hire:webhook add": {
    usage: "hire:webhook add --workspace <hiring workspace id> --url <url> [--events candidate/test.finished,candidate/updated] [--description <text>]",
    run: async (args, d) =>
      out(
        CreateSubscriptionResponseSchema,
        await d.client("notifier", WebhookAdminService).createSubscription({
          service: "hiring",
          workspaceId: flag(args, "workspace"),
          url: flag(args, "url"),
          description: args.flags.get("description") ?? "",
          eventFilters: webhookEvents(args.flags.get("events")),
        }),
      ),
  },
  "hire:webhook list": {
    usage: "hire:webhook list --workspace <hiring workspace id>",
    run: async (args, d) =>
      out(ListSubscriptionsResponseSchema, await d.client("notifier", WebhookAdminService).listSubscriptions({ service: "hiring", workspaceId: flag(args, "workspace") })),
  },
  "hire:webhook remove": {
    usage: "hire:webhook remove --subscription <id>",
    run: async (args, d) => {
      await d.client("notifier", WebhookAdminService).deleteSubscription({ subscriptionId: flag(args, "subscription") });
      return { removed: flag(args, "subscription") };
    },
  },
  "webhook:log": {
    usage: "webhook:log <subscription id> [--limit <n>] [--before <attempt id>]",
    run: async (args, d) =>
      out(
        ListDeliveryAttemptsResponseSchema,
        await d.client("notifier", WebhookAdminService).listDeliveryAttempts({
          subscriptionId: positional(args, "subscription id"),
          limit: Number(args.flags.get("limit") ?? 100),
          beforeAttemptId: BigInt(args.flags.get("before") ?? 0),
        }),
      ),
  },
  "webhook:notifications": {
    usage: "webhook:notifications <subscription id> [--state <pending|delivered|given_up>] [--limit <n>]",
    run: async (args, d) =>
      out(
        ListNotificationsResponseSchema,
        await d.client("notifier", WebhookAdminService).listNotifications({
          subscriptionId: positional(args, "subscription id"),
          state: args.flags.get("state") ?? "",
          limit: Number(args.flags.get("limit") ?? 100),
        }),
      ),
  },
  "webhook:replay": {
    usage: "webhook:replay <notification id>",
    run: async (args, d) =>
      out(ReplayNotificationResponseSchema, await d.client("notifier", WebhookAdminService).replayNotification({ notificationId: positional(args, "notification id") })),
  },
  "webhook:metrics": {
    usage: "webhook:metrics",
    run: async (_args, d) => out(GetMetricsResponseSchema, await d.client("notifier", WebhookAdminService).getMetrics({})),
  },
};

function positional(args: Args, name: string): string {
  const v = args.positional[0];
  if (!v) throw new UsageError(`<${name}> is required`);
  return v;
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

function findCommand(positional: string[]): { name: string; rest: string[] } | undefined {
  for (const words of [2, 1]) {
    const name = positional.slice(0, words).join(" ");
    if (COMMANDS[name]) return { name, rest: positional.slice(words) };
  }
  return undefined;
}

export async function runAdmin(argv: string[], directory: Directory): Promise<unknown> {
  const args = parseArgs(argv);
  const found = findCommand(args.positional);
  if (!found) throw new UsageError(`usage: npm run -s admin -- <command>\n${Object.values(COMMANDS).map((c) => `  ${c.usage}`).join("\n")}`);
  const result = await COMMANDS[found.name].run({ ...args, positional: found.rest }, directory);
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
