import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";

/** One rendered Kubernetes object. */
export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [k: string]: any;
};

/** An overlay rendered as `kubectl apply -k deploy/overlays/<name>` renders it (kubectl's built-in kustomize). */
export function render(overlay: string): K8sObject[] {
  let out: string;
  try {
    out = execFileSync("kubectl", ["kustomize", join("deploy/overlays", overlay)], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    throw new Error(`kubectl kustomize deploy/overlays/${overlay} failed (.ci/run installs kubectl): ${(err as Error).message}`);
  }
  return parseAllDocuments(out)
    .map((d) => d.toJS() as K8sObject)
    .filter(Boolean);
}
