import { fromBinary } from "@bufbuild/protobuf";
import type { Client } from "@connectrpc/connect";
import { EventSchema } from "../../../gen/events/v1/event_pb.js";
import { HiringAdminService } from "../../../gen/hiring/v1/admin_pb.js";
import { connectDatabase } from "../../../lib/db.js";
import type { TestSystem } from "../../../test/support/harness.js";

/** What the hiring tests share: workspaces, records in the import shapes, the outbox. */

export type Json = Record<string, unknown>;

export interface HiringWorkspace {
  id: string;
  key: string;
  keyId: string;
  auth: { bearer: string };
}

export function hiringAdmin(sys: TestSystem): Client<typeof HiringAdminService> {
  return sys.directory.client("hiring", HiringAdminService);
}

export async function createWorkspace(sys: TestSystem, name = "Acme"): Promise<HiringWorkspace> {
  const ws = await hiringAdmin(sys).createWorkspace({ name });
  return { id: ws.workspaceId, key: ws.apiKey, keyId: ws.apiKeyId, auth: { bearer: ws.apiKey } };
}

export async function importData(sys: TestSystem, ws: HiringWorkspace, data: Json) {
  return hiringAdmin(sys).import({ workspaceId: ws.id, json: JSON.stringify(data) });
}

/** A zone-less export timestamp, `minutes` after a fixed origin. */
export function at(minutes: number): string {
  return new Date(Date.UTC(2024, 0, 1) + minutes * 60_000).toISOString().slice(0, 19);
}

export function opening(id: string, extra: Json = {}): Json {
  return { id, name: `Opening ${id}`, slug: `opening-${id}`, created_at: at(0), published_at: at(0), closed_at: null, tests: [{ id: `${id}-t`, name: "Quiz", slug: `${id}-quiz` }], ...extra };
}

export interface CandidateSpec {
  id: string;
  opening: string;
  /** Minutes after the origin when the first test started. */
  started?: number;
  finished?: boolean;
  demo?: boolean;
  score?: number;
  points?: number;
  rating?: number;
  hireState?: string;
  category?: string | null;
  tags?: string[];
  email?: string;
  extra?: Json;
}

/** A candidate in the single-candidate export shape, with one quiz test and no answers. */
export function candidate(s: CandidateSpec): Json {
  const tests =
    s.started === undefined
      ? []
      : [{ type: "quiz", started_at: at(s.started), finished_at: s.finished === false ? null : at(s.started + 20), points: s.points ?? 0, score: s.score ?? 0, questions: [], answers: [], skills: [] }];
  return {
    id: s.id,
    name: `Name ${s.id}`,
    email: s.email ?? `${s.id}@example.com`,
    profile_url: "",
    contact_info: { full_name: `Full ${s.id}`, contact_email: `${s.id}@contact.example.com`, network: "", phone: "", city: "Oslo", country: "Norway" },
    points: s.points ?? 0,
    score: s.score ?? 0,
    rating: s.rating ?? 0,
    hire_state: s.hireState ?? "",
    category_id: s.category ?? null,
    job_opening_id: s.opening,
    utm_source: "",
    utm_medium: "",
    utm_campaign: "",
    referrer_url: "",
    ip_address: "10.0.0.1",
    tests,
    tag_ids: s.tags ?? [],
    demo: s.demo ?? false,
    ...s.extra,
  };
}

/** A decoded hiring event from the outbox. */
export interface OutboxEvent {
  workspaceId: string;
  entity: string;
  action: string;
  objectId: string;
}

/**
 * The hiring service's events, read from its outbox (written in the same transaction as the
 * change, so what a call emitted is there when the call returns; nothing to wait for).
 */
export async function hiringEvents(sys: TestSystem, workspaceId?: string): Promise<OutboxEvent[]> {
  const db = await connectDatabase(sys.config, "hiring");
  try {
    const rows: { data: Buffer }[] = await db("outbox").orderBy("seq").select("data");
    return rows
      .map((r) => fromBinary(EventSchema, new Uint8Array(r.data)))
      .filter((e) => workspaceId === undefined || e.workspaceId === workspaceId)
      .map((e) => ({ workspaceId: e.workspaceId, entity: e.entity, action: e.action, objectId: e.objectId }));
  } finally {
    await db.destroy();
  }
}

/** The path and query of a `links.next` URL, after checking it points at this gateway. */
export function pathOf(sys: TestSystem, next: string): string {
  const url = new URL(next);
  if (url.origin !== new URL(sys.url).origin) throw new Error(`links.next ${next} leaves the gateway ${sys.url}`);
  return `${url.pathname}${url.search}`;
}
