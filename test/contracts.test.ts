import t from "tap";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

const buf = join("node_modules", ".bin", "buf");

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

t.test("buf lint passes (STANDARD rules)", async (t) => {
  t.doesNotThrow(() => execFileSync(buf, ["lint"], { stdio: "pipe" }));
});

t.test("the committed generated code matches the protos", async (t) => {
  const out = mkdtempSync(join(tmpdir(), "gen-"));
  t.teardown(() => rmSync(out, { recursive: true, force: true }));
  const template = readFileSync("buf.gen.yaml", "utf8").replace(/out: gen/, `out: ${out}`);
  const templateFile = join(out, "buf.gen.yaml");
  writeFileSync(templateFile, template);
  execFileSync(buf, ["generate", "--template", templateFile], { stdio: "pipe" });
  const fresh = files(out).filter((f) => f.endsWith(".ts")).map((f) => relative(out, f)).sort();
  const committed = files("gen").map((f) => relative("gen", f)).sort();
  t.same(committed, fresh, "same files");
  for (const f of fresh) t.equal(readFileSync(join("gen", f), "utf8"), readFileSync(join(out, f), "utf8"), `gen/${f} is up to date (run npm run generate)`);
});
