import t from "tap";
import { readFileSync } from "node:fs";

/** No Docker engine runs here, so the image definition is checked statically. */
const dockerfile = readFileSync("deploy/Dockerfile", "utf8");
const pkg = JSON.parse(readFileSync("package.json", "utf8"));

t.test("the Dockerfile is multi-stage and runs any service through npm run service", async (t) => {
  const stages = [...dockerfile.matchAll(/^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/gim)];
  t.ok(stages.length >= 2, "at least a build and a runtime stage");
  for (const [, image] of stages) t.match(image, /^node:20/, "Node.js 20 images");
  t.match(dockerfile, /npm ci/);
  t.match(dockerfile, /COPY --from=build/);
  t.match(dockerfile, /ENTRYPOINT \["npm", "run", "-s", "service", "--"\]/);
  t.match(dockerfile, /^USER node$/m, "does not run as root");
  t.ok(pkg.scripts.service, "package.json has the service script the image runs");
});

t.test("every directory the runtime needs is copied into the image", async (t) => {
  for (const dir of ["gen", "lib", "gateway", "services", "cmd", "node_modules"]) {
    t.match(dockerfile, new RegExp(`COPY --from=build /app/${dir} `), dir);
  }
});
