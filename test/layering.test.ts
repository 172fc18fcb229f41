import t from "tap";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import type { DescFile } from "@bufbuild/protobuf";
import { PROTO_FILES } from "../lib/contracts.js";

/** The layering the code relies on, checked so a forgotten registration fails loudly. */

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

t.test("every generated contract with a service is in lib/contracts.ts", async (t) => {
  for (const file of files("gen").filter((f) => f.endsWith("_pb.ts"))) {
    const module = (await import(pathToFileURL(join(process.cwd(), file)).href)) as Record<string, unknown>;
    const descriptors = Object.entries(module).filter(([name]) => name.startsWith("file_")).map(([, d]) => d as DescFile);
    for (const d of descriptors) {
      if (d.services.length === 0) continue;
      t.ok(PROTO_FILES.includes(d), `${relative(".", file)} (${d.proto.name}) is listed in lib/contracts.ts: without it its routes and webhook payloads are missing`);
    }
  }
});

t.test("no service and no library module imports the gateway", async (t) => {
  for (const file of [...files("services"), ...files("lib")].filter((f) => f.endsWith(".ts"))) {
    const imports = [...readFileSync(file, "utf8").matchAll(/from\s+"([^"]+)"/g)].map((m) => m[1]);
    t.notOk(imports.some((i) => /(^|\/)gateway\//.test(i) && !i.includes("gen/gateway/")), `${file} does not import gateway/`);
  }
});
