// Validates deploy/kubernetes three ways, so a manifest that a cluster would
// reject, or that no longer matches the worker, fails CI:
//  1. every object against the Kubernetes API's JSON schema (kubernetes-models:
//     types, required fields) and, strictly, against the API's field names
//     (@kubernetes/client-node's models): a misspelt `livenesProbe` is an error,
//     as with `kubectl apply --validate=strict`;
//  2. cross-references: selectors match the pod labels, volumes name the
//     ConfigMap and claim, ports agree, the grace period outlasts the drain;
//  3. orcd itself: the ConfigMap's worker.yaml and the container's args start a
//     real orcd-host (CPU backend, a fixture model, loopback), whose probe and
//     scrape paths must answer 200 and whose registered uri is the advertised one.
// Usage: node validate_manifests.mjs MANIFEST_DIR BIN_DIR PLUGIN_DIR MODEL_GGUF
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import YAML from "yaml";
import { ConfigMap, PersistentVolumeClaim, Service } from "kubernetes-models/v1";
import { Deployment } from "kubernetes-models/apps/v1";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";

const [manifestDir, binDir, pluginDir, model] = process.argv.slice(2);
if (!model) {
  console.error("usage: validate_manifests.mjs MANIFEST_DIR BIN_DIR PLUGIN_DIR MODEL_GGUF");
  process.exit(2);
}

const errors = [];
const fail = (where, what) => errors.push(`${where}: ${what}`);

// kind -> [apiVersion, kubernetes-models class, client-node model name]
const KINDS = {
  ConfigMap: ["v1", ConfigMap, "V1ConfigMap"],
  PersistentVolumeClaim: ["v1", PersistentVolumeClaim, "V1PersistentVolumeClaim"],
  Service: ["v1", Service, "V1Service"],
  Deployment: ["apps/v1", Deployment, "V1Deployment"],
  NetworkPolicy: ["networking.k8s.io/v1", NetworkPolicy, "V1NetworkPolicy"],
  PodDisruptionBudget: ["policy/v1", PodDisruptionBudget, "V1PodDisruptionBudget"],
};
const LEAF_TYPES = new Set(["string", "number", "boolean", "Date", "any", "object", "IntOrString"]);

async function modelFields(type) {
  const mod = await import(`@kubernetes/client-node/dist/gen/models/${type}.js`);
  return mod[type].getAttributeTypeMap();
}

// Every key must be a field of the API type at that place, recursively.
async function checkFieldNames(value, type, where) {
  if (value === null || value === undefined || LEAF_TYPES.has(type)) return;
  let m = type.match(/^Array<(.+)>$/);
  if (m) {
    if (!Array.isArray(value)) return fail(where, `expected a list (${type})`);
    for (let i = 0; i < value.length; i++) await checkFieldNames(value[i], m[1], `${where}[${i}]`);
    return;
  }
  m = type.match(/^\{ \[key: string\]: (.+); \}$/);
  if (m) {
    for (const [k, v] of Object.entries(value)) await checkFieldNames(v, m[1], `${where}.${k}`);
    return;
  }
  if (typeof value !== "object" || Array.isArray(value)) {
    return fail(where, `expected an object (${type})`);
  }
  const fields = await modelFields(type);
  const known = new Map(fields.map((f) => [f.baseName, f.type]));
  for (const [k, v] of Object.entries(value)) {
    if (!known.has(k)) fail(`${where}.${k}`, `unknown field (not in ${type})`);
    else await checkFieldNames(v, known.get(k), `${where}.${k}`);
  }
}

async function validateObject(obj, where) {
  const entry = KINDS[obj?.kind];
  if (!entry) return fail(where, `kind ${obj?.kind} is not one this test knows`);
  const [apiVersion, Model, modelName] = entry;
  if (obj.apiVersion !== apiVersion) fail(where, `apiVersion ${obj.apiVersion}, expected ${apiVersion}`);
  try {
    new Model(obj).validate();
  } catch (e) {
    fail(where, `schema: ${e.message}`);
  }
  await checkFieldNames(obj, modelName, where);
}

// The checks above must be able to fail: a misspelt field and a wrong type.
async function selfTest() {
  const before = errors.length;
  const pod = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "t" },
    spec: { replicas: "two", selector: { matchLabels: { a: "b" } },
      template: { metadata: { labels: { a: "b" } },
        spec: { containers: [{ name: "c", image: "i", livenesProbe: {} }] } } } };
  await validateObject(pod, "self-test");
  const found = errors.splice(before);
  const sawTypo = found.some((e) => e.includes("livenesProbe") && e.includes("unknown field"));
  const sawType = found.some((e) => e.includes("replicas"));
  if (!sawTypo || !sawType) {
    console.error("validator self-test failed; it reported:", found);
    process.exit(1);
  }
}

function loadManifests() {
  const kustomization = YAML.parse(fs.readFileSync(path.join(manifestDir, "kustomization.yaml"), "utf8"));
  const listed = [...(kustomization.resources ?? [])].sort();
  const present = fs.readdirSync(manifestDir)
    .filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml").sort();
  if (JSON.stringify(listed) !== JSON.stringify(present)) {
    fail("kustomization.yaml", `resources ${listed} differ from the directory's files ${present}`);
  }
  const objects = [];
  for (const file of present) {
    for (const doc of YAML.parseAllDocuments(fs.readFileSync(path.join(manifestDir, file), "utf8"))) {
      if (doc.errors.length) fail(file, `YAML: ${doc.errors[0].message}`);
      const obj = doc.toJS();
      if (obj) objects.push({ file, obj });
    }
  }
  return objects;
}

const byKind = (objects, kind) => objects.filter((o) => o.obj.kind === kind).map((o) => o.obj);
const matches = (selector, labels) =>
  Object.entries(selector ?? {}).every(([k, v]) => labels?.[k] === v);

function checkCrossReferences(objects) {
  const [deployment] = byKind(objects, "Deployment");
  const [configMap] = byKind(objects, "ConfigMap");
  const [claim] = byKind(objects, "PersistentVolumeClaim");
  if (!deployment || !configMap || !claim) {
    fail("manifests", "expected a Deployment, a ConfigMap and a PersistentVolumeClaim");
    return null;
  }
  const pod = deployment.spec.template;
  const labels = pod.metadata.labels;
  if (!matches(deployment.spec.selector.matchLabels, labels)) fail("deployment", "selector misses the pod labels");
  for (const s of byKind(objects, "Service")) {
    if (!matches(s.spec.selector, labels)) fail(`service ${s.metadata.name}`, "selector misses the pods");
  }
  for (const p of [...byKind(objects, "PodDisruptionBudget"), ...byKind(objects, "NetworkPolicy")]) {
    const sel = p.spec.selector ?? p.spec.podSelector;
    if (!matches(sel.matchLabels, labels)) fail(`${p.kind} ${p.metadata.name}`, "selector misses the pods");
  }
  const [container] = pod.spec.containers;
  if (pod.spec.containers.length !== 1) fail("deployment", "one container per pod (one worker, one GPU)");
  if (container.resources?.limits?.["nvidia.com/gpu"] !== 1) fail("deployment", "nvidia.com/gpu limit must be 1");
  const volumes = Object.fromEntries(pod.spec.volumes.map((v) => [v.name, v]));
  for (const m of container.volumeMounts) {
    if (!volumes[m.name]) fail("deployment", `volumeMount ${m.name} has no volume`);
  }
  if (volumes.config?.configMap?.name !== configMap.metadata.name) fail("deployment", "config volume must name the ConfigMap");
  if (volumes.models?.persistentVolumeClaim?.claimName !== claim.metadata.name) fail("deployment", "models volume must name the claim");

  const worker = YAML.parse(configMap.data["worker.yaml"]);
  const port = worker.server.port;
  const httpPort = container.ports.find((p) => p.name === "http");
  if (httpPort?.containerPort !== port) fail("deployment", `containerPort ${httpPort?.containerPort} != server.port ${port}`);
  if (Number(pod.metadata.annotations["prometheus.io/port"]) !== port) fail("deployment", "prometheus.io/port != server.port");
  if (!worker.model.path.startsWith(container.volumeMounts.find((m) => m.name === "models").mountPath + "/")) {
    fail("configmap", "model.path is not on the models volume");
  }
  const preStopSeconds = Number(container.lifecycle?.preStop?.exec?.command?.[1] ?? 0);
  const drain = worker.limits.shutdown_timeout_s + preStopSeconds;
  if (!(pod.spec.terminationGracePeriodSeconds > drain)) {
    fail("deployment", `terminationGracePeriodSeconds ${pod.spec.terminationGracePeriodSeconds} does not outlast preStop + limits.shutdown_timeout_s (${drain} s)`);
  }
  const startup = container.startupProbe;
  if (startup.periodSeconds * startup.failureThreshold < 300) fail("deployment", "the startup probe allows under 5 minutes for a model load");
  return { container, pod, worker };
}

// Starts orcd-host as the pod would (the ConfigMap's file, the container's
// args with the downward-API variables filled in), overriding only what a
// CI machine lacks: the GPU, the model volume, the pod network.
async function checkAgainstWorker({ container, pod, worker }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "orcd-k8s-"));
  const config = path.join(dir, "worker.yaml");
  fs.writeFileSync(config, YAML.stringify(worker));
  const env = { POD_NAME: "orcd-7d9f8-x2x4q", POD_IP: "127.0.0.1" };
  const args = container.args.map((a) => a.replace(/\$\((\w+)\)/g, (_, v) => env[v]))
    .map((a) => (a === "/etc/orcd/worker.yaml" ? config : a));
  args.push("--model", model, "--device", "cpu", "--bind", "127.0.0.1", "--port", "0",
    "--plugin-dir", pluginDir);
  const child = spawn(path.join(binDir, "orcd-host"), args, { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  child.stderr.on("data", (d) => (log += d));
  const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  try {
    let ready = null;
    for (let i = 0; i < 300 && !ready; i++) {
      ready = log.split("\n").map((l) => { try { return JSON.parse(l); } catch { return null; } })
        .find((e) => e?.event === "ready");
      if (!ready) await new Promise((r) => setTimeout(r, 100));
      if (child.exitCode !== null) break;
    }
    if (!ready) return fail("orcd-host", `did not become ready with the manifests' config and args:\n${log}`);
    const advertised = container.args[container.args.indexOf("--advertise-url") + 1]
      .replace("$(POD_IP)", env.POD_IP);
    if (ready.uri !== advertised) fail("orcd-host", `registered uri ${ready.uri}, expected ${advertised}`);
    const base = `http://127.0.0.1:${ready.port}`;
    const paths = {
      startupProbe: container.startupProbe.httpGet.path,
      readinessProbe: container.readinessProbe.httpGet.path,
      livenessProbe: container.livenessProbe.httpGet.path,
      "prometheus.io/path": pod.metadata.annotations["prometheus.io/path"],
    };
    for (const [what, p] of Object.entries(paths)) {
      const r = await fetch(base + p);
      const body = await r.text();
      if (r.status !== 200) fail(what, `${p} answered ${r.status} from a loaded worker`);
      if (what === "prometheus.io/path" && !body.includes("# TYPE")) fail(what, `${p} is not Prometheus text`);
    }
    // SIGTERM as the kubelet sends it: the worker drains and exits 0.
    child.kill("SIGTERM");
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r("timeout"), 20000).unref())]);
    if (code !== 0) fail("orcd-host", `SIGTERM: exit ${code}, expected 0 (drained)`);
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await selfTest();
const objects = loadManifests();
for (const { file, obj } of objects) await validateObject(obj, `${file} ${obj.kind}/${obj.metadata?.name}`);
const refs = checkCrossReferences(objects);
if (refs && errors.length === 0) await checkAgainstWorker(refs);
if (errors.length) {
  console.error(`deploy/kubernetes: ${errors.length} problem(s):\n  ` + errors.join("\n  "));
  process.exit(1);
}
console.log(`deploy/kubernetes: ${objects.length} objects valid; orcd-host served the probes with its config`);
