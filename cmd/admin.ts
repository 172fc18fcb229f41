import { readFileSync } from "node:fs";
import { toJson, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import { loadConfig } from "../lib/config.js";
import { Directory } from "../lib/directory.js";
import { HiringAdminService, CreateWorkspaceResponseSchema, CreateApiKeyResponseSchema, ImportResponseSchema } from "../gen/hiring/v1/admin_pb.js";
import { IdentityService } from "../gen/accounts/v1/accounts_pb.js";
import { WebhookAdminService, CreateSubscriptionResponseSchema, ListSubscriptionsResponseSchema } from "../gen/notifier/v1/webhooks_pb.js";

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
        await d.client("hiring", HiringAdminService).import({ workspaceId: flag(args, "workspace"), data: readJsonFile(args.positional[0]) as never }),
      ),
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
};

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
    process.stderr.write(`${JSON.stringify({ error: message })}\n`);
    process.exitCode = err instanceof UsageError ? 2 : 1;
  }
  // Open HTTP/2 sessions would keep the process alive.
  process.exit();
}
