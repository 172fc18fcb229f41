import { randomBytes } from "node:crypto";
import { connectDatabase, isMysql, type Knex } from "../../lib/db.js";
import { seededRandom } from "../../lib/seeded-random.js";
import { benchAgent, compare, cpuCell, httpGet, ROUNDS, rowBudget, tableLine, type ComparedPath, type Measurement } from "../measure.js";
import { log, startProcess, stopProcess } from "../support.js";
import type { ChildProcess } from "node:child_process";
import type { TrackingSection } from "./section.js";

/**
 * The project list at scale: one workspace with BENCH_PROJECTS (10,000) projects of 40 clients
 * and BENCH_USERS (100) members, each project with two project users; 30% private, 85% active,
 * half billable. The caller is a plain member (not an admin), so every query also applies the
 * visibility of private projects. Three queries, each through the gateway (HTTP, Basic API
 * token) and through a bare server running the same list query (bench/tracking/bare-server.ts):
 * a filtered, sorted page (active, billable, three clients, newest first, 50 per page), the
 * first page by name (151 per page, the default), and a page 90% deep into that list.
 */

const PROJECTS = Number(process.env.BENCH_PROJECTS ?? 10_000);
const USERS = Number(process.env.BENCH_USERS ?? 100);
const CLIENTS = 40;

async function signup(port: number, name: string): Promise<{ id: number; token: string; workspaceId: number }> {
  const email = `${name}.${randomBytes(4).toString("hex")}@example.com`;
  const res = await fetch(`http://127.0.0.1:${port}/api/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: "correct horse battery", display_name: name, timezone: "UTC" }),
  });
  if (res.status !== 200) throw new Error(`signup: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { id: number; api_token: string; default_workspace_id: number };
  return { id: body.id, token: body.api_token, workspaceId: body.default_workspace_id };
}

/** Makes the users members (not admins) of the workspace, as accepting an invitation does. */
async function addMembers(accounts: Knex, workspaceId: number, userIds: number[]): Promise<void> {
  const ws = await accounts("workspaces").where({ id: workspaceId }).first("organization_id");
  for (const userId of userIds) {
    await accounts("organization_users").insert({ organization_id: ws.organization_id, user_id: userId, admin: false, owner: false, inactive: false, joined: true, role: "user" });
    await accounts("workspace_users").insert({ workspace_id: workspaceId, user_id: userId, admin: false, role: "user", active: true });
  }
}

/** Users that exist only to be project users (no credentials anyone knows). */
async function syntheticUsers(accounts: Knex, count: number): Promise<number[]> {
  const now = new Date();
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const [id] = await accounts("users").insert({
      email: `bench-user-${i}.${randomBytes(4).toString("hex")}@example.com`,
      password_hash: "!",
      api_token_hash: randomBytes(32).toString("hex"),
      fullname: `Bench User ${i}`,
      timezone: "UTC",
      created_at: now,
      updated_at: now,
    });
    ids.push(Number(id));
  }
  return ids;
}

async function load(tracking: Knex, workspaceId: number, ownerId: number, userIds: number[]): Promise<number[]> {
  const random = seededRandom(42);
  const now = new Date();
  const clientIds: number[] = [];
  for (let i = 0; i < CLIENTS; i++) {
    const [id] = await tracking("clients").insert({ workspace_id: workspaceId, name: `Client ${i}`, notes: null, archived: false, creator_id: ownerId, created_at: now, at: now });
    clientIds.push(Number(id));
  }
  const rows = [];
  for (let i = 0; i < PROJECTS; i++) {
    const name = `Project ${Math.floor(random() * 1e9).toString(36)} ${i}`;
    const created = new Date(now.getTime() - Math.floor(random() * 365 * 86400_000));
    rows.push({
      workspace_id: workspaceId, client_id: random() < 0.9 ? clientIds[Math.floor(random() * CLIENTS)] : null, name, sort_name: name.toLowerCase(),
      active: random() < 0.85, is_private: random() < 0.3, color: "#0b83d9", billable: random() < 0.5, template: false, template_id: null,
      auto_estimates: false, estimated_seconds: null, currency: null, fixed_fee: null, rate: null, rate_last_updated: null, recurring: false,
      recurring_parameters: null, start_date: "2025-01-01", end_date: null, creator_id: ownerId, created_at: created, at: created, server_deleted_at: null,
    });
  }
  await tracking.batchInsert("projects", rows, 500);
  const projectIds = (await tracking("projects").where({ workspace_id: workspaceId }).orderBy("id").pluck("id")).map(Number);
  const members = [];
  for (const projectId of projectIds) {
    const a = userIds[Math.floor(random() * userIds.length)];
    let b = userIds[Math.floor(random() * userIds.length)];
    if (b === a) b = userIds[(userIds.indexOf(a) + 1) % userIds.length];
    for (const userId of new Set([a, b])) {
      members.push({ workspace_id: workspaceId, project_id: projectId, user_id: userId, manager: false, rate: null, labour_cost: null, rate_last_updated: null, labour_cost_last_updated: null, at: now });
    }
  }
  await tracking.batchInsert("project_users", members, 500);
  // MySQL refreshes index statistics by itself; SQLite's planner needs them gathered.
  if (!isMysql(tracking)) await tracking.raw("ANALYZE");
  return clientIds;
}

export const projectsSection: TrackingSection = {
  name: "projects",
  async run({ sys, concurrency, requests, seconds }) {
    const { ports } = sys;
    const owner = await signup(ports.gateway, "owner");
    const member = await signup(ports.gateway, "member");
    const accounts = await connectDatabase(sys.config, "accounts");
    const tracking = await connectDatabase(sys.config, "tracking");
    const children: ChildProcess[] = [];
    try {
      log(`  loading ${PROJECTS} projects, ${USERS} users...`);
      const started = Date.now();
      const others = await syntheticUsers(accounts, Math.max(0, USERS - 2));
      await addMembers(accounts, owner.workspaceId, [member.id, ...others]);
      const clientIds = await load(tracking, owner.workspaceId, owner.id, [owner.id, member.id, ...others]);
      log(`  loaded in ${((Date.now() - started) / 1000).toFixed(1)} s`);

      const bare = await startProcess(
        "bench/tracking/bare-server.ts",
        { ...sys.env, BARE_PORT: String(ports.bare), BARE_WORKSPACE: String(owner.workspaceId), BARE_USER: String(member.id) },
        `http://127.0.0.1:${ports.bare}/projects?per_page=1`,
      );
      children.push(bare);
      const auth = { authorization: `Basic ${Buffer.from(`${member.token}:api_token`).toString("base64")}` };
      const gatewayPath = (query: string) => `/api/v9/workspaces/${owner.workspaceId}/projects${query}`;
      const agent = benchAgent(concurrency);
      const count = async (query: string) => {
        const res = await httpGet(agent, ports.gateway, gatewayPath(query), auth);
        if (res.status !== 200) throw new Error(`${query}: ${res.status} ${res.body.slice(0, 200)}`);
        return (JSON.parse(res.body) as unknown[]).length;
      };
      // The member's visible, active projects, counted by paging through them once.
      let visible = 0;
      for (let page = 1; ; page++) {
        const n = await count(`?per_page=200&page=${page}`);
        visible += n;
        if (n < 200) break;
      }
      const deepPage = Math.max(1, Math.floor((visible * 0.9) / 151));
      const scenarios = [
        { name: "filtered, sorted page", query: `?active=true&billable=true&client_ids=${clientIds.slice(0, 3).join(",")}&sort_field=created_at&sort_order=desc&per_page=50` },
        { name: "first page", query: "?per_page=151" },
        { name: `90% deep page (page ${deepPage})`, query: `?per_page=151&page=${deepPage}` },
      ];
      const rows: { scenario: string; path: string; matches: number; m: Measurement }[] = [];
      for (const s of scenarios) {
        const matches = await count(s.query);
        if (matches === 0) throw new Error(`${s.name}: no project`);
        const paths: ComparedPath[] = [
          { path: "gateway (HTTP)", request: async () => (await httpGet(agent, ports.gateway, gatewayPath(s.query), auth)).status === 200, serverPid: sys.process.pid },
          { path: "bare server (HTTP)", request: async () => (await httpGet(agent, ports.bare, `/projects${s.query}`, {})).status === 200, serverPid: bare.pid },
        ];
        for (const { path, m } of await compare(paths, requests, { concurrency, seconds })) rows.push({ scenario: s.name, path, matches, m });
        log(`  ${s.name}: ${rows.slice(-2).map((r) => `${r.path} ${r.m.rps.toFixed(0)} req/s`).join(", ")}`);
      }
      agent.destroy();

      const out = [
        `tracking project list, ${PROJECTS} projects, ${USERS} users, ${visible} active projects visible to the member, ${sys.mode}, concurrency ${concurrency}, ${rowBudget(requests, seconds)}, in ${ROUNDS} rounds taken in turn with the other path`,
        tableLine(["query", "path", "page rows", "requests", "req/s", "p50 ms", "p99 ms", "errors", "server CPU ms/req", "bench CPU ms/req"]),
        tableLine(["---", "---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:"]),
        ...rows.map((r) =>
          tableLine([r.scenario, r.path, String(r.matches), String(r.m.requests), r.m.rps.toFixed(0), r.m.p50.toFixed(2), r.m.p99.toFixed(2), String(r.m.errors), cpuCell(r.m.serverCpu), cpuCell(r.m.benchCpu)]),
        ),
        "",
      ];
      const find = (prefix: string, path: string) => rows.find((r) => r.scenario.startsWith(prefix) && r.path.startsWith(path))?.m;
      for (const s of ["filtered", "first", "90%"]) {
        const [gw, bareServer] = [find(s, "gateway"), find(s, "bare")];
        if (gw && bareServer) out.push(`gateway / bare server throughput, ${s}: ${((gw.rps / bareServer.rps) * 100).toFixed(0)}% (target >= 70%)`);
      }
      const [first, deep] = [find("first", "gateway"), find("90%", "gateway")];
      if (first && deep) out.push(`deep page cost / first page cost (gateway, by throughput): ${(first.rps / deep.rps).toFixed(2)} (target <= 1.5); by p50: ${(deep.p50 / first.p50).toFixed(2)}`);
      return out;
    } finally {
      await accounts.destroy();
      await tracking.destroy();
      for (const child of children) await stopProcess(child);
    }
  },
};
