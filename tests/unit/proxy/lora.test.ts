// The LoRA request builder against the contracts extracted from SGLang's and vLLM's source
// (tests/fixtures/lora/*.json, written by integrations/contracts/extract_lora_routes.py).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  adapterNameFor,
  loadAdapterCall,
  unloadAdapterCall,
  withAdapter,
  type LoraEngine,
  type LoraHttpCall,
} from "../../../server/proxy/upstreams/lora";

interface Field {
  name: string;
  type: string;
  required: boolean;
}
interface Contract {
  header: { system: string; sources: Array<{ repository: string; commit: string; path: string }> };
  routes: Array<{ path: string; methods: string[]; handler: string; body: string | null }>;
  models: Record<string, { fields: Field[] }>;
  perRequest:
    | { kind: "field"; field: string; in: string[] }
    | { kind: "select-by-request-field"; requestField: string; registry: string };
}

const ROOT = path.join(__dirname, "../../..");

function contract(engine: LoraEngine): Contract {
  return JSON.parse(readFileSync(path.join(ROOT, "tests/fixtures/lora", `${engine}.json`), "utf8")) as Contract;
}

/** Run the committed extractor on a snapshot text; the contract it writes. */
function extract(engine: LoraEngine, snapshot: string): Contract {
  const dir = mkdtempSync(path.join(tmpdir(), "lora-contract-"));
  const src = path.join(dir, "in.snapshot");
  const out = path.join(dir, "out.json");
  writeFileSync(src, snapshot);
  const script = path.join(ROOT, "integrations/contracts/extract_lora_routes.py");
  execFileSync("python3", [script, engine, "--snapshot", src, "--out", out]);
  return JSON.parse(readFileSync(out, "utf8")) as Contract;
}

const snapshotText = (engine: LoraEngine) =>
  readFileSync(path.join(ROOT, "integrations/contracts/lora_sources", `${engine}.snapshot`), "utf8");

/** Problems of `call` against the engine's route table and body model; empty when it conforms. */
function violations(c: Contract, call: LoraHttpCall): string[] {
  const route = c.routes.find((r) => r.path === call.path);
  if (!route) return [`no route ${call.path}`];
  const out: string[] = [];
  if (!route.methods.includes(call.method)) out.push(`${call.path} does not take ${call.method}`);
  const model = route.body ? c.models[route.body] : undefined;
  if (!model) return [...out, `no body model for ${call.path}`];
  const names = new Set(model.fields.map((f) => f.name));
  for (const k of Object.keys(call.body)) if (!names.has(k)) out.push(`${route.body} has no field ${k}`);
  for (const f of model.fields) if (f.required && !(f.name in call.body)) out.push(`${route.body} needs ${f.name}`);
  return out;
}

describe.each(["sglang", "vllm"] as const)("%s LoRA contract", (engine) => {
  const c = contract(engine);

  it("records where it was extracted from", () => {
    expect(c.header.system).toBe(engine);
    for (const s of c.header.sources) {
      expect(s.repository).toBe(engine === "sglang" ? "sgl-project/sglang" : "vllm-project/vllm");
      expect(s.commit).toMatch(/^[0-9a-f]{40}$/);
    }
  });

  it("is what the committed extractor makes of the committed snapshot", () => {
    const fresh = extract(engine, snapshotText(engine));
    const strip = ({ header, ...rest }: Contract) => ({ ...rest, sources: header.sources });
    expect(strip(fresh)).toEqual(strip(c));
  });

  it("load and unload requests match the engine's routes and body fields", () => {
    const load = loadAdapterCall(engine, { name: adapterNameFor("u42", 3), path: "/ckpt/u42/v3" });
    expect(violations(c, load)).toEqual([]);
    expect(load.body).toEqual({ lora_name: "user-u42-v3", lora_path: "/ckpt/u42/v3" });
    expect(violations(c, unloadAdapterCall(engine, "user-u42-v3"))).toEqual([]);
  });

  it("the checker rejects a field the engine lacks and a missing required field", () => {
    const load = loadAdapterCall(engine, { name: "a", path: "/p" });
    expect(violations(c, { ...load, body: { ...load.body, adapter_path: "/p" } })).toEqual([
      expect.stringContaining("no field adapter_path"),
    ]);
    expect(violations(c, { ...load, body: { lora_name: "a" } })).toEqual([expect.stringContaining("needs lora_path")]);
    expect(violations(c, { ...load, path: "/load_adapter" })).toEqual(["no route /load_adapter"]);
  });

  it("a chat request names the adapter the way the engine reads it, and the base when none", () => {
    const body = { model: "policy", messages: [{ role: "user", content: "hi" }], lora_path: "someone-elses" };
    const routed = withAdapter(engine, body, "user-u42-v3");
    const added = Object.keys(routed).filter((k) => !(k in body) || routed[k] !== body[k as keyof typeof body]);
    const p = c.perRequest;
    if (p.kind === "field") {
      expect(added).toEqual([p.field]);
      expect(routed[p.field]).toBe("user-u42-v3");
      for (const model of p.in) expect(c.models[model].fields.map((f) => f.name)).toContain(p.field);
      expect(p.in).toContain("ChatCompletionRequest");
    } else {
      expect(added).toEqual([p.requestField]);
      expect(routed[p.requestField]).toBe("user-u42-v3");
      expect(routed).not.toHaveProperty("lora_path");
    }
    const base = withAdapter(engine, body, null);
    expect(base).toEqual({ model: "policy", messages: body.messages });
    expect(body.lora_path).toBe("someone-elses");
  });
});

describe("a contract change reaches the builder's check", () => {
  it("an engine whose load request lost lora_path makes the builder's call fail", () => {
    const edited = snapshotText("vllm").replace(
      "class LoadLoRAAdapterRequest(BaseModel):\n    lora_name: str\n    lora_path: str\n",
      "class LoadLoRAAdapterRequest(BaseModel):\n    lora_name: str\n    src: str\n",
    );
    expect(edited).not.toBe(snapshotText("vllm"));
    const c = extract("vllm", edited);
    expect(violations(c, loadAdapterCall("vllm", { name: "a", path: "/p" }))).toEqual([
      "LoadLoRAAdapterRequest has no field lora_path",
      "LoadLoRAAdapterRequest needs src",
    ]);
  });
});

describe("LoRA request inputs stay data", () => {
  it("refuses adapter names that are not plain tokens and paths with control characters", () => {
    for (const bad of ["", "../x", "a b", "base:adapter", "a/b", "-x", "x".repeat(129)]) {
      expect(() => loadAdapterCall("sglang", { name: bad, path: "/p" }), bad).toThrow();
      expect(() => withAdapter("vllm", {}, bad), bad).toThrow();
    }
    expect(() => loadAdapterCall("vllm", { name: "a", path: "/p\n/q" })).toThrow(/control/);
    expect(() => adapterNameFor("u 1", 1)).toThrow();
    expect(() => adapterNameFor("u1", 0)).toThrow(/positive/);
  });

  it("pins only where the engine can (SGLang)", () => {
    const c = contract("sglang");
    const pinned = loadAdapterCall("sglang", { name: "a", path: "/p", pinned: true });
    expect(pinned.body.pinned).toBe(true);
    expect(violations(c, pinned)).toEqual([]);
    expect(() => loadAdapterCall("vllm", { name: "a", path: "/p", pinned: true })).toThrow(/pinned/);
  });
});
