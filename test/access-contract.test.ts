import t from "tap";
import { getOption, ScalarType } from "@bufbuild/protobuf";
import { route as routeOption, Scope } from "../gen/gateway/v1/annotations_pb.js";
import { PROTO_FILES } from "../lib/contracts.js";
import { accessOf, declaresAccess, SCOPE_FIELD } from "../lib/access.js";

/**
 * Every RPC declares its access in the contract (itself or through its service's default), and
 * the declaration is one the services can
 * resolve: a scope, the request field that names the scope's workspace or organization, and only
 * the requirements and refusals that scope has.
 */

const methods = PROTO_FILES.flatMap((f) => f.services).flatMap((s) => s.methods.map((m) => ({ name: `${s.typeName}.${m.name}`, method: m })));
const REFUSAL_STATUSES = [0, 400, 402, 403, 404];

t.test("every RPC declares (gateway.v1.access), or its service (gateway.v1.default_access), with a scope", async (t) => {
  t.ok(methods.length > 100, "the contracts' RPCs");
  for (const { name, method } of methods) {
    if (!declaresAccess(method)) {
      t.fail(`${name} declares no access`);
      continue;
    }
    t.not(accessOf(method).scope, Scope.UNSPECIFIED, `${name}: a scope`);
  }
});

t.test("internal RPCs have no route, and every routed RPC acts for a caller of the REST API", async (t) => {
  for (const { name, method } of methods) {
    const routed = Boolean(getOption(method, routeOption).path);
    const internal = accessOf(method).scope === Scope.INTERNAL;
    t.equal(routed, !internal, `${name}: ${routed ? "routed" : "not routed"}, ${internal ? "internal" : "not internal"}`);
  }
});

t.test("a workspace or organization scope names an int64 request field that holds its id", async (t) => {
  for (const { name, method } of methods) {
    const { scope } = accessOf(method);
    const field = SCOPE_FIELD[scope];
    if (!field) continue;
    const f = method.input.fields.find((x) => x.name === field);
    t.ok(f && f.fieldKind === "scalar" && f.scalar === ScalarType.INT64, `${name}: ${field} is an int64 field of ${method.input.typeName}`);
  }
});

t.test("requirements and refusals are those the scope has", async (t) => {
  for (const { name, method } of methods) {
    const a = accessOf(method);
    const scoped = a.scope === Scope.WORKSPACE || a.scope === Scope.ORGANIZATION;
    if (a.admin || a.notAdmin) t.ok(scoped, `${name}: admin requirements only in a workspace or organization`);
    if (a.notAdmin) t.ok(a.admin, `${name}: an admin refusal only with the admin requirement`);
    if (a.premium) t.ok(a.scope === Scope.WORKSPACE && a.notPremium.length > 0, `${name}: premium only in a workspace, with its 402 message`);
    if (a.notPremium) t.ok(a.premium, `${name}: a premium message only with the premium requirement`);
    if (a.denied) t.ok(scoped, `${name}: a denial only in a workspace or organization`);
    if (a.missing) t.equal(a.scope, Scope.ORGANIZATION, `${name}: a refusal for a missing organization only in an organization`);
    for (const refusal of [a.denied, a.notAdmin, a.missing]) {
      if (!refusal) continue;
      t.ok(REFUSAL_STATUSES.includes(refusal.status), `${name}: refusal status ${refusal.status}`);
      t.ok(refusal.message.length > 0, `${name}: refusal message`);
    }
  }
});
