// Custom reward, grader and loss modules run with the workers' privileges. Only an admin sets or changes their
// paths (a write key may keep a stored one), they load only from EXTENSIONS_DIR (realpath, must stay inside,
// module extensions only), and the web process probes a reward module in a child process it kills on timeout:
// a module that exits or spins at import answers 400 and the console keeps answering.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { startApiServer } from "../../helpers/apiServer";
import { api, makeKey, uniq } from "../../helpers/fixtures";

let server: Awaited<ReturnType<typeof startApiServer>>;
let ext = "";
const saved = { dir: process.env.EXTENSIONS_DIR, timeout: process.env.EXTENSION_PROBE_TIMEOUT_MS };
const OK = "export default async () => ({ votes: [1], score: 1 });\n";

beforeAll(async () => {
  ext = await mkdtemp(path.join(os.tmpdir(), "extensions-"));
  await writeFile(path.join(ext, "ok.mjs"), OK);
  await writeFile(path.join(ext, "grader.mjs"), "export default async () => ({ score: 1 });\n");
  await writeFile(path.join(ext, "exits.mjs"), "process.exit(3);\n");
  await writeFile(path.join(ext, "spins.mjs"), "for (;;) {}\n");
  process.env.EXTENSIONS_DIR = ext;
  process.env.EXTENSION_PROBE_TIMEOUT_MS = "4000";
  server = await startApiServer();
});
afterAll(async () => {
  await server.close();
  await rm(ext, { recursive: true, force: true });
  for (const [k, v] of [
    ["EXTENSIONS_DIR", saved.dir],
    ["EXTENSION_PROBE_TIMEOUT_MS", saved.timeout],
  ] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

const custom = (modulePath: string) => ({ method: "grpo", judge: { backend: { kind: "custom", modulePath } } });

describe("custom module paths", () => {
  it("a write key cannot set or change a module path; it may keep the stored one", async () => {
    const writer = api(server.url, { bearer: await makeKey(["write"]) });
    const admin = api(server.url, { bearer: await makeKey(["admin"]) });
    // Counted by name, not globally: other test files create experiments in the same database meanwhile.
    const refusedName = uniq("w");
    const refused = await writer("POST", "/api/v1/experiments", { name: refusedName, config: custom("ok.mjs") });
    expect(refused.status).toBe(403);
    expect(refused.body.error!.issues).toContainEqual({
      path: "config.judge.backend.modulePath",
      message: expect.stringContaining("administrator"),
    });
    expect(await db().experiment.count({ where: { name: refusedName } })).toBe(0);

    const created = await admin("POST", "/api/v1/experiments", { name: uniq("a"), config: custom("ok.mjs") });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const kept = await writer("PATCH", `/api/v1/experiments/${id}`, {
      description: "kept",
      config: { ...custom("ok.mjs"), hyper: { lr: 1e-5 } },
    });
    expect(kept.status).toBe(200);
    for (const config of [
      custom("spins.mjs"),
      { ...custom("ok.mjs"), customLossPath: "ok.mjs" },
      { ...custom("ok.mjs"), evaluation: { grader: "custom", graderPath: "grader.mjs" } },
    ]) {
      const changed = await writer("PATCH", `/api/v1/experiments/${id}`, { config });
      expect(changed.status).toBe(403);
    }
    const stored = await db().experiment.findUniqueOrThrow({ where: { id } });
    expect(stored.config).toMatchObject({ judge: { backend: { modulePath: "ok.mjs" } } });
    expect(stored.config).not.toHaveProperty("customLossPath");
  });

  it("an admin's path outside EXTENSIONS_DIR is refused with a 400 naming the field, and nothing is saved", async () => {
    const admin = api(server.url, { bearer: await makeKey(["admin"]) });
    const prefix = uniq("p");
    const name = () => `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
    for (const [modulePath, why] of [
      ["../../scripts/postinstall.mjs", /'\.\.'/],
      [path.resolve("scripts/postinstall.mjs"), /relative/],
      ["scripts/postinstall.mjs", /not found in EXTENSIONS_DIR/],
      ["ok.json", /must be \.ts/],
    ] as const) {
      const res = await admin("POST", "/api/v1/experiments", { name: name(), config: custom(modulePath) });
      expect(res.status).toBe(400);
      expect(res.body.error!.issues).toContainEqual({
        path: "config.judge.backend.modulePath",
        message: expect.stringMatching(why),
      });
    }
    const loss = await admin("POST", "/api/v1/experiments", {
      name: name(),
      config: { customLossPath: "../examples/custom-loss.ts#default" },
    });
    expect(loss.status).toBe(400);
    expect(loss.body.error!.issues[0]).toMatchObject({ path: "config.customLossPath" });
    const checkpoint = await admin("POST", "/api/v1/experiments", {
      name: name(),
      config: { policy: { kind: "embedded", checkpoint: "/etc" } },
    });
    expect(checkpoint.status).toBe(400);
    expect(checkpoint.body.error!.issues[0]).toMatchObject({ path: "config.policy.checkpoint" });
    expect(await db().experiment.count({ where: { name: { startsWith: prefix } } })).toBe(0);
  });

  it("a module that exits or spins at import is probed in a child: 400, and the console still answers", async () => {
    const admin = api(server.url, { bearer: await makeKey(["admin"]) });
    for (const [modulePath, why] of [
      ["exits.mjs", /without an answer/],
      ["spins.mjs", /within 4000 ms/],
    ] as const) {
      const res = await admin("POST", "/api/v1/experiments", { name: uniq("x"), config: custom(modulePath) });
      expect(res.status).toBe(400);
      expect(res.body.error!.issues[0]).toMatchObject({
        path: "config.judge.backend.modulePath",
        message: expect.stringMatching(why),
      });
      expect((await admin("GET", "/api/v1/experiments?limit=1")).status).toBe(200);
    }
  });
});
