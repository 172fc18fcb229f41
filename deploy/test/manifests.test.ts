import t from "tap";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { DEFAULT_PORTS, SERVICE_NAMES } from "../../lib/config.js";
import { render, type K8sObject } from "./render.js";

/**
 * The Kubernetes manifests, rendered the way `kubectl apply -k` renders them (kubectl's built-in
 * kustomize), every object validated against the Kubernetes API schemas (kubernetes-models), and
 * the properties the deployment promises checked one by one.
 */

const OVERLAYS = ["dev", "production"] as const;
const PROCESSES = ["gateway", ...SERVICE_NAMES] as const;
/** Never in a ConfigMap, an env value of a manifest, compose.yaml or the image. */
const SECRETS = ["INTERNAL_TOKEN", "ENCRYPTION_KEY", "SMTP_URL", "MYSQL_URL"];
/** Third-party containers of the dev overlay whose image must write to its root filesystem. */
const WRITABLE_ROOT = new Set(["mariadb"]);

type Obj = K8sObject;

/** The kubernetes-models class of an object: `<group>/<version>/<Kind>` (core: `v1/<Kind>`). */
async function modelOf(o: Obj): Promise<new (data: unknown) => { validate(): void }> {
  const mod = await import(`kubernetes-models/${o.apiVersion}/${o.kind}`);
  return mod[o.kind];
}

const pkg = JSON.parse(readFileSync("package.json", "utf8"));
const readme = readFileSync("README.md", "utf8");
const configSource = readFileSync("lib/config.ts", "utf8");

/** The names of the README's configuration table (first column). */
function readmeVariables(): Set<string> {
  const section = readme.split(/^## Configuration$/m)[1]?.split(/^## /m)[0] ?? "";
  const names = new Set<string>();
  for (const line of section.split("\n")) {
    if (!line.startsWith("| `")) continue;
    for (const m of line.split("|")[1].matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(m[1]);
  }
  return names;
}

/** The variables lib/config.ts reads (`env.NAME`, `env, "NAME"`, and the `<SERVICE>_URL`s). */
function configVariables(): Set<string> {
  const names = new Set<string>();
  for (const m of configSource.matchAll(/env\.([A-Z][A-Z0-9_]*)/g)) names.add(m[1]);
  for (const m of configSource.matchAll(/env, "([A-Z][A-Z0-9_]*)"/g)) names.add(m[1]);
  if (configSource.includes("env[`${name.toUpperCase()}_URL`]")) for (const s of SERVICE_NAMES) names.add(`${s.toUpperCase()}_URL`);
  return names;
}

/** Path prefixes of every REST route the gateway serves (the `path` of each proto route option). */
function restPaths(): string[] {
  const paths = new Set<string>();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith(".proto")) for (const m of readFileSync(join(dir, e.name), "utf8").matchAll(/^\s*path:\s*"([^"]+)"/gm)) paths.add(m[1]);
    }
  };
  walk("proto");
  return [...paths];
}

const podSpecs = (objs: Obj[]) =>
  objs.filter((o) => ["Deployment", "StatefulSet", "Job", "DaemonSet"].includes(o.kind)).map((o) => ({ owner: o, spec: o.spec.template.spec, template: o.spec.template }));

const isOurs = (c: { image: string }) => /(^|\/)workhub(:|$)/.test(c.image);

for (const overlay of OVERLAYS) {
  t.test(`overlay ${overlay}`, async (t) => {
    const objs = render(overlay);
    const byKind = (kind: string) => objs.filter((o) => o.kind === kind);
    const find = (kind: string, name: string) => objs.find((o) => o.kind === kind && o.metadata.name === name);

    t.test("every object is valid against the Kubernetes API schemas", async (t) => {
      t.ok(objs.length > 10, `${objs.length} objects`);
      for (const o of objs) {
        const Model = await modelOf(o).catch(() => undefined);
        if (!Model) {
          t.fail(`${o.apiVersion} ${o.kind} ${o.metadata.name}: no schema`);
          continue;
        }
        t.doesNotThrow(() => new Model(o).validate(), `${o.kind} ${o.metadata.name}`);
      }
      const names = objs.map((o) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`);
      t.same(names.filter((n, i) => names.indexOf(n) !== i), [], "no object twice");
      for (const o of objs) if (o.kind !== "Namespace") t.equal(o.metadata.namespace, "workhub", `${o.kind} ${o.metadata.name} in the namespace workhub`);
    });

    t.test("one Deployment and Service per service, from one image, run through the package.json scripts", async (t) => {
      t.ok(pkg.scripts.service && pkg.scripts.migrate, "package.json has the service and migrate scripts");
      // npm hands SIGTERM to its child only: without exec the shell between them would drop it,
      // and tsx's CLI kills a child that does not confirm a relayed signal within 30 ms.
      t.match(pkg.scripts.service, /^exec node --import tsx /, "the service script execs node itself, so SIGTERM reaches the process");
      const images = new Set<string>();
      for (const name of PROCESSES) {
        const dep = find("Deployment", name);
        const svc = find("Service", name);
        if (!t.ok(dep, `Deployment ${name}`) || !t.ok(svc, `Service ${name}`)) continue;
        const spec = dep!.spec.template.spec;
        t.equal(spec.containers.length, 1, `${name}: one container`);
        const c = spec.containers[0];
        images.add(c.image);
        t.same(c.command, ["npm", "run", "-s", "service", "--"], `${name}: npm run service`);
        t.same(c.args, [name], `${name}: runs ${name}`);
        t.same(c.ports.map((p: { containerPort: number }) => p.containerPort), [DEFAULT_PORTS[name]], `${name}: its default port`);
        t.same(svc!.spec.ports.map((p: { port: number }) => p.port), [DEFAULT_PORTS[name]], `Service ${name} on ${DEFAULT_PORTS[name]}`);
        for (const [k, v] of Object.entries(svc!.spec.selector)) t.equal(dep!.spec.template.metadata.labels[k], v, `Service ${name} selects the pods of its Deployment (${k})`);
        // The migration: an init container of each service with a database (see the README).
        const init = spec.initContainers ?? [];
        if (name === "gateway") t.same(init, [], "the gateway has no schema to migrate");
        else {
          t.equal(init.length, 1, `${name}: a migrating init container`);
          t.same(init[0]?.command, ["npm", "run", "-s", "migrate", "--"], `${name}: npm run migrate`);
          t.same(init[0]?.args, [name], `${name}: migrates its own schema`);
          t.equal(init[0]?.image, c.image, `${name}: the same image migrates`);
          t.same(init[0]?.envFrom, c.envFrom, `${name}: the migration sees the same configuration`);
        }
      }
      t.equal(images.size, 1, `one image for every service (${[...images].join(", ")})`);
      const dockerfile = readFileSync("deploy/Dockerfile", "utf8");
      t.match(dockerfile, /ENTRYPOINT \["npm", "run", "-s", "service", "--"\]/, "the image's own entry point is the same script");
    });

    t.test("every container: probes, requests and limits, non-root, read-only root filesystem, graceful stop", async (t) => {
      for (const { owner, spec, template } of podSpecs(objs)) {
        const where = `${owner.kind} ${owner.metadata.name}`;
        const podSec = spec.securityContext ?? {};
        t.equal(podSec.runAsNonRoot, true, `${where}: runAsNonRoot`);
        t.ok(Number.isInteger(podSec.runAsUser) && podSec.runAsUser > 0, `${where}: a numeric non-root user (the kubelet cannot check a named one)`);
        t.equal(podSec.seccompProfile?.type, "RuntimeDefault", `${where}: seccomp RuntimeDefault`);
        t.equal(spec.automountServiceAccountToken, false, `${where}: no service account token`);
        for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
          const cw = `${where} ${c.name}`;
          for (const kind of ["requests", "limits"]) for (const r of ["cpu", "memory"]) t.ok(c.resources?.[kind]?.[r], `${cw}: ${kind}.${r}`);
          t.equal(c.securityContext?.allowPrivilegeEscalation, false, `${cw}: no privilege escalation`);
          t.same(c.securityContext?.capabilities?.drop, ["ALL"], `${cw}: drops every capability`);
          if (!WRITABLE_ROOT.has(c.name)) t.equal(c.securityContext?.readOnlyRootFilesystem, true, `${cw}: read-only root filesystem`);
          if (c.env) for (const e of c.env) t.notOk(SECRETS.includes(e.name) && e.value !== undefined, `${cw}: ${e.name} not given as a literal value`);
        }
        for (const c of spec.containers) {
          t.ok(c.readinessProbe, `${where} ${c.name}: readiness probe`);
          t.ok(c.livenessProbe, `${where} ${c.name}: liveness probe`);
        }
        if (!spec.containers.some(isOurs)) continue;
        const c = spec.containers[0];
        const port = c.ports[0];
        t.equal(c.readinessProbe.httpGet?.path, "/readyz", `${where}: readiness on /readyz`);
        t.equal(c.livenessProbe.httpGet?.path, "/healthz", `${where}: liveness on /healthz`);
        for (const probe of [c.readinessProbe, c.livenessProbe]) t.ok([port.name, port.containerPort].includes(probe.httpGet.port), `${where}: probed on its own port`);
        // SIGTERM after the preStop pause; the process then has the rest of the grace period,
        // of which cmd/service.ts uses at most SHUTDOWN_BUDGET_MS before it exits anyway.
        const pause = Number(c.lifecycle?.preStop?.exec?.command?.[1] ?? 0);
        t.ok(pause > 0, `${where}: a preStop pause while the endpoints drop the pod`);
        t.ok(spec.terminationGracePeriodSeconds >= pause + 20, `${where}: ${spec.terminationGracePeriodSeconds} s grace covers the pause and a 20 s drain`);
        const writable = new Set(c.volumeMounts.map((m: { mountPath: string }) => m.mountPath));
        for (const dir of ["/tmp", "/data"]) t.ok(writable.has(dir), `${where}: ${dir} is a writable volume (tsx's cache, DATA_DIR)`);
        // Prometheus finds /metrics on the container's port.
        const ann = template.metadata.annotations ?? {};
        t.equal(ann["prometheus.io/scrape"], "true", `${where}: scraped`);
        t.equal(ann["prometheus.io/port"], String(port.containerPort), `${where}: scraped on its port`);
        t.equal(ann["prometheus.io/path"], "/metrics", `${where}: scraped at /metrics`);
      }
    });

    t.test("configuration from a ConfigMap, secrets from a Secret only, names as the README's table", async (t) => {
      const documented = readmeVariables();
      const read = configVariables();
      t.ok(documented.size > 10, `the README's table (${documented.size} names)`);
      t.same([...read].filter((n) => !documented.has(n)), [], "every variable lib/config.ts reads is in the README's table");
      const maps = byKind("ConfigMap");
      t.ok(maps.length >= 1, "a ConfigMap");
      for (const cm of maps) {
        for (const [key, value] of Object.entries<string>(cm.data ?? {})) {
          t.notOk(SECRETS.includes(key), `ConfigMap ${cm.metadata.name}: ${key} is not a secret`);
          if (cm.metadata.name.startsWith("workhub-config")) t.ok(documented.has(key), `ConfigMap ${key} is a README variable`);
          t.notMatch(value, /:\/\/[^/@\s]+:[^/@\s]+@/, `ConfigMap ${key}: no credentials in a URL`);
        }
      }
      for (const { owner, spec } of podSpecs(objs)) {
        for (const c of [...(spec.initContainers ?? []), ...spec.containers].filter(isOurs)) {
          const refs = c.envFrom ?? [];
          t.ok(refs.some((r: any) => r.configMapRef?.name.startsWith("workhub-config")), `${owner.metadata.name}: configuration from the ConfigMap`);
          t.ok(refs.some((r: any) => r.secretRef?.name.startsWith("workhub-secrets")), `${owner.metadata.name}: secrets from the Secret`);
          t.same(c.env ?? [], [], `${owner.metadata.name}: nothing set outside them`);
          for (const r of refs) {
            const ref = r.configMapRef ?? r.secretRef;
            const kind = r.configMapRef ? "ConfigMap" : "Secret";
            // Production expects the Secret to exist already (created by the operator).
            if (!(kind === "Secret" && overlay === "production")) t.ok(find(kind, ref.name), `${kind} ${ref.name} is rendered`);
          }
        }
      }
      const secrets = byKind("Secret").filter((s) => s.metadata.name.startsWith("workhub-secrets"));
      if (overlay === "production") t.same(secrets, [], "production renders no Secret: it is created by the operator, never committed");
      for (const s of secrets) {
        const keys = Object.keys({ ...s.data, ...s.stringData });
        t.same(keys.filter((k) => !documented.has(k)), [], "every Secret key is a README variable");
        for (const k of ["INTERNAL_TOKEN", "ENCRYPTION_KEY", "MYSQL_URL"]) t.ok(keys.includes(k), `the Secret has ${k}`);
        const key = Buffer.from(Buffer.from(s.data.ENCRYPTION_KEY, "base64").toString(), "base64");
        t.equal(key.length, 32, "ENCRYPTION_KEY is 32 bytes of base64");
      }
      const cm = maps.find((m) => m.metadata.name.startsWith("workhub-config"))!;
      for (const s of SERVICE_NAMES) t.equal(cm.data[`${s.toUpperCase()}_URL`], `http://${s}:${DEFAULT_PORTS[s]}`, `${s} is reached through its Service`);
      t.ok(cm.data.NATS_URL, "NATS_URL is set");
      const dockerfile = readFileSync("deploy/Dockerfile", "utf8");
      for (const k of SECRETS) t.notMatch(dockerfile, new RegExp(`\\b${k}\\b`), `the image holds no ${k}`);
    });

    t.test("only the gateway is reachable from outside; services only from each other", async (t) => {
      const ingresses = byKind("Ingress");
      t.equal(ingresses.length, 1, "one Ingress");
      const paths = ingresses.flatMap((i) => i.spec.rules.flatMap((r: any) => r.http.paths));
      for (const p of paths) t.equal(p.backend.service.name, "gateway", `${p.path} goes to the gateway`);
      const exposed = (path: string) => paths.some((p: any) => (p.pathType === "Exact" ? path === p.path : path === p.path || path.startsWith(`${p.path}/`)));
      for (const route of restPaths()) t.ok(exposed(route), `${route} is reachable through the Ingress`);
      t.ok(exposed("/openapi.json"), "/openapi.json is reachable");
      for (const page of ["/", "/login", "/signup", "/profile", "/docs", "/invitations/code", "/reset-password/code", "/assets/app.css"]) t.ok(exposed(page), `the page ${page} is reachable`);
      t.ok(exposed("/healthz"), "the gateway's liveness is reachable (the home page links to it)");
      for (const internal of ["/metrics", "/readyz"]) t.notOk(exposed(internal), `${internal} is not exposed`);

      const policies = byKind("NetworkPolicy");
      const deny = policies.find((p) => Object.keys(p.spec.podSelector).length === 0 || Object.keys(p.spec.podSelector.matchLabels ?? {}).length === 0);
      t.ok(deny && deny.spec.policyTypes.includes("Ingress") && !deny.spec.ingress, "a default-deny ingress policy for every pod");
      const selects = (p: Obj, labels: Record<string, string>) => Object.entries<string>(p.spec.podSelector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
      for (const name of PROCESSES) {
        const labels = find("Deployment", name)!.spec.template.metadata.labels;
        const rules = policies.filter((p) => p !== deny && selects(p, labels)).flatMap((p) => p.spec.ingress ?? []);
        if (name === "gateway") {
          t.ok(rules.some((r: any) => !r.from), "the gateway accepts connections from anywhere");
          continue;
        }
        t.ok(rules.length > 0, `${name} accepts some connections`);
        for (const r of rules) {
          t.ok(r.from?.length, `${name}: only from named peers`);
          for (const peer of r.from ?? []) {
            const ok = peer.podSelector?.matchLabels?.["app.kubernetes.io/part-of"] === "workhub" || peer.namespaceSelector?.matchLabels?.["kubernetes.io/metadata.name"] === "monitoring";
            t.ok(ok, `${name}: from workhub pods (or Prometheus in monitoring): ${JSON.stringify(peer)}`);
          }
          t.ok((r.ports ?? []).some((p: any) => p.port === DEFAULT_PORTS[name]), `${name}: its port is open to them`);
        }
      }
    });

    t.test("images (BLOB_DIR) and exports (EXPORT_DIR) live on one claim that every replica of their service mounts", async (t) => {
      const cm = byKind("ConfigMap").find((m) => m.metadata.name.startsWith("workhub-config"))!;
      const claim = find("PersistentVolumeClaim", "workhub-files");
      if (!t.ok(claim, "the shared files claim")) return;
      for (const [service, variable] of [["accounts", "BLOB_DIR"], ["tracking", "EXPORT_DIR"]] as const) {
        const spec = find("Deployment", service)!.spec.template.spec;
        const volume = spec.volumes.find((v: any) => v.persistentVolumeClaim?.claimName === "workhub-files");
        const mount = spec.containers[0].volumeMounts.find((m: any) => m.name === volume?.name);
        const dir: string = cm.data[variable] ?? "";
        t.ok(mount && dir.startsWith(`${mount.mountPath}/`), `${service}: ${variable} (${dir}) is under the claim's mount`);
        t.notOk(dir.startsWith(`${cm.data.DATA_DIR}/`), `${variable} is not under DATA_DIR, which is each pod's own`);
      }
      // Replicas on several nodes can only share a claim that many nodes may write.
      if (overlay === "production") t.same(claim!.spec.accessModes, ["ReadWriteMany"], "production: ReadWriteMany");
    });

    if (overlay === "dev") {
      t.test("dev: one replica each, MariaDB and NATS JetStream in the cluster", async (t) => {
        for (const name of PROCESSES) t.equal(find("Deployment", name)!.spec.replicas, 1, `${name}: one replica`);
        const mysql = find("StatefulSet", "mysql");
        const nats = find("StatefulSet", "nats");
        t.ok(mysql && find("Service", "mysql"), "MariaDB StatefulSet and Service");
        t.ok(nats && find("Service", "nats"), "NATS StatefulSet and Service");
        t.ok(nats!.spec.template.spec.containers[0].args.includes("-js"), "NATS with JetStream");
        const secret = byKind("Secret").find((s) => s.metadata.name.startsWith("workhub-secrets"))!;
        t.match(Buffer.from(secret.data.MYSQL_URL, "base64").toString(), /@mysql:3306$/, "MYSQL_URL names the in-cluster MariaDB");
        t.same(byKind("HorizontalPodAutoscaler"), [], "no autoscaling");
      });
    } else {
      t.test("production: more replicas, autoscaling, disruption budgets, external MySQL and NATS", async (t) => {
        for (const name of PROCESSES) {
          const dep = find("Deployment", name)!;
          t.ok(dep.spec.replicas >= 2, `${name}: at least two replicas`);
          const hpa = byKind("HorizontalPodAutoscaler").find((h) => h.spec.scaleTargetRef.kind === "Deployment" && h.spec.scaleTargetRef.name === name);
          t.ok(hpa && hpa.spec.minReplicas >= 2 && hpa.spec.maxReplicas > hpa.spec.minReplicas, `${name}: autoscaled`);
          const labels = dep.spec.template.metadata.labels;
          const pdb = byKind("PodDisruptionBudget").find((p) => Object.entries<string>(p.spec.selector.matchLabels).every(([k, v]) => labels[k] === v));
          t.ok(pdb && pdb.spec.minAvailable >= 1, `${name}: a disruption budget`);
          t.equal(dep.spec.strategy.rollingUpdate.maxUnavailable, 0, `${name}: rolling updates keep every replica until its successor is ready`);
        }
        t.same(byKind("StatefulSet"), [], "no database or NATS in the cluster: external ones, named by configuration");
        const cm = byKind("ConfigMap").find((m) => m.metadata.name.startsWith("workhub-config"))!;
        t.notMatch(cm.data.NATS_URL, /^nats:\/\/nats:/, "NATS_URL names the external cluster");
        t.match(cm.data.PUBLIC_URL, /^https:\/\//, "PUBLIC_URL is https");
        const ingress = byKind("Ingress")[0];
        t.ok(ingress.spec.tls?.length, "the Ingress terminates TLS");
      });
    }
  });
}

t.test("compose.yaml runs the same image and commands, with secrets from the environment only", async (t) => {
  const compose = parse(readFileSync("deploy/compose.yaml", "utf8"), { merge: true });
  for (const name of PROCESSES) {
    const s = compose.services[name];
    if (!t.ok(s, name)) continue;
    t.same(s.command, [name], `${name}: the image's entry point (npm run service --) runs ${name}`);
    t.equal(s.read_only, true, `${name}: read-only root filesystem`);
    for (const k of SECRETS) {
      const v = s.environment[k];
      if (v !== undefined) t.match(v, /\$\{[A-Z_]+(:[-?][^}]*)?\}/, `${name}: ${k} comes from the environment`);
    }
    t.same(Object.keys(s.environment).filter((k) => !readmeVariables().has(k)), [], `${name}: only README variables`);
  }
  t.same(compose.services.migrate.entrypoint, ["npm", "run", "-s", "migrate", "--"], "the migration is npm run migrate");
  t.equal(compose.services.hiring.depends_on.migrate.condition, "service_completed_successfully", "services wait for the migration");
  t.same(Object.keys(compose.services.gateway.ports ? compose.services : {}).filter((n) => compose.services[n].ports && n !== "gateway"), [], "only the gateway publishes a port");
});

t.test("the README's Deploy to Kubernetes section matches the manifests and the code", async (t) => {
  const { DRAIN_MS } = await import("../../lib/serve.js");
  const { SHUTDOWN_BUDGET_MS } = await import("../../cmd/system.js");
  const section = readme.split(/^## Deploy to Kubernetes$/m)[1]?.split(/^## /m)[0] ?? "";
  t.ok(section.length > 1000, "the section is there");
  for (const overlay of OVERLAYS) t.match(section, `kubectl apply -k deploy/overlays/${overlay}`, `the one command of ${overlay}`);
  // Every metric it names is one the code defines.
  const { HttpMetrics, RpcMetrics } = await import("../../lib/metrics.js");
  const { DeliveryMetrics } = await import("../../services/notifier/delivery/metrics.js");
  const registries = [new RpcMetrics("tracking").registry, new HttpMetrics().registry, new DeliveryMetrics(async () => new Map()).registry];
  const defined = new Set(registries.flatMap((r) => r.getMetricsAsArray().map((m) => m.name)));
  const named = [...section.matchAll(/`([a-z]+(?:_[a-z]+)+_(?:total|seconds|depth))(?:\{[^`]*)?`/g)].map((m) => m[1]);
  t.ok(named.length >= 8, `${named.length} metrics named`);
  for (const name of named) t.ok(defined.has(name), `${name} exists`);
  // The shutdown figures it gives are the ones the manifests and the code use.
  const gateway = render("production").find((o) => o.kind === "Deployment" && o.metadata.name === "gateway")!.spec.template.spec;
  const pause = Number(gateway.containers[0].lifecycle.preStop.exec.command[1]);
  t.match(section, `a ${pause} s preStop pause`);
  t.match(section, `at most ${DRAIN_MS / 1000} s`);
  t.match(section, `within ${SHUTDOWN_BUDGET_MS / 1000} s`);
  t.match(section, `the ${gateway.terminationGracePeriodSeconds} s \`terminationGracePeriodSeconds\``);
  t.ok(pause * 1000 + SHUTDOWN_BUDGET_MS <= gateway.terminationGracePeriodSeconds * 1000, "the pause and the shutdown budget fit in the grace period");
  t.ok(DRAIN_MS < SHUTDOWN_BUDGET_MS, "the drain leaves time to close the rest");
});
