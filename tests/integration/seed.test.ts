import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/platform/db/client";
import { seedFirstStart } from "../../server/bootstrap/seed";
import { verifyApiKey } from "../../server/access/apiKeys";
import { authenticate } from "../../server/users/service";
import { isolateDatabase } from "../helpers/isolate";

// A first start needs an empty store: this file seeds a database of its own, not the run's shared one
// (where other files create users and the INIT admin would never be created).
let drop = async () => {};
beforeAll(async () => {
  drop = await isolateDatabase("seed");
});
afterAll(async () => {
  await db().$disconnect();
  await drop();
});

describe("first-start seed", () => {
  it("creates the INIT admin, the INIT admin-scope key and the demo experiments once, and is idempotent", async () => {
    expect(await db().user.count()).toBe(0);
    const env = {
      INIT_ADMIN_EMAIL: "init-admin@example.test",
      INIT_ADMIN_PASSWORD: "init-password-123",
      INIT_API_KEY: "ocrl_0123abcd_initkeyinitkeyinitkeyinit",
    };
    const first = await seedFirstStart(env);
    expect(first.admin).toEqual({ email: env.INIT_ADMIN_EMAIL, password: null });
    expect((await authenticate(env.INIT_ADMIN_EMAIL, env.INIT_ADMIN_PASSWORD)).role).toBe("ADMIN");
    expect(first.initKey).toBe(env.INIT_API_KEY);
    const principal = await verifyApiKey(env.INIT_API_KEY);
    expect(principal).toMatchObject({ kind: "apiKey", scopes: ["admin"], experimentId: null });
    expect((await db().experiment.findUnique({ where: { slug: "demo" } }))?.demo).toBe(true);
    // One demo per method, each with a run waiting for the trainer and simulated users switched on.
    const demos = await db().experiment.findMany({
      where: { demo: true, slug: { in: ["demo", "demo-grpo", "demo-opd"] } },
      include: { runs: true },
    });
    expect(demos.map((d) => (d.config as { method: string }).method).sort()).toEqual(["combine", "grpo", "opd"]);
    expect(demos.map((d) => d.runs.map((r) => r.status))).toEqual([["PENDING"], ["PENDING"], ["PENDING"]]);
    // OPD and Combine gated on the questions Leo asks; each evaluated on his held-out ones.
    for (const d of demos) {
      const { method, serving } = d.config as { method: string; serving: unknown };
      expect(serving).toMatchObject(
        method === "grpo" ? { promotion: "always" } : { promotion: "gated", gate: { set: "asked questions" } },
      );
      const sets = await db().evalSet.findMany({ where: { experimentId: d.id }, orderBy: { name: "asc" } });
      expect(sets.map((x) => [x.name, x.latestVersion])).toEqual([
        ["asked questions", 1],
        ["held-out personas", 1],
      ]);
    }
    // The agentic demo sits with the GRPO experiment: two environments and two task sets, nothing launched.
    const grpo = demos.find((d) => d.slug === "demo-grpo")!;
    const envs = await db().environment.findMany({ where: { experimentId: grpo.id }, orderBy: { name: "asc" } });
    expect(envs.map((e) => [e.name, e.tools])).toEqual([
      ["terminal", ["bash"]],
      ["toolcall", ["calc", "lookup"]],
    ]);
    const sets = await db().taskSetVersion.findMany({
      where: { set: { experimentId: grpo.id } },
      include: { set: true },
    });
    expect(sets.map((v) => [v.set.name, v.taskCount]).sort()).toEqual([
      ["arithmetic", 48],
      ["terminal-examples", 3],
    ]);
    const heldOut = await db().task.count({
      where: { setVersion: { set: { experimentId: grpo.id, name: "arithmetic" } }, split: "heldout" },
    });
    expect(heldOut).toBeGreaterThan(0);
    expect(heldOut).toBeLessThan(48);
    expect(await db().episode.count({ where: { experimentId: grpo.id } })).toBe(0);
    const sims = await db().simulationControl.findMany({ where: { experimentId: { in: demos.map((d) => d.id) } } });
    expect(sims.map((s) => [s.enabled, s.personas])).toEqual([
      [true, ["leo"]],
      [true, ["leo"]],
      [true, ["leo"]],
    ]);

    // The per-user demo (no shared run: its adapters train on the per-user scheduler) beside its shared twin, both
    // with the four users of conflicting preferences.
    const personal = await db().experiment.findMany({
      where: { demo: true, slug: { in: ["demo-per-user", "demo-shared-users"] } },
      include: { runs: true },
      orderBy: { slug: "asc" },
    });
    expect(
      personal.map((d) => [d.slug, (d.config as { personalization: string }).personalization, d.runs.length]),
    ).toEqual([
      ["demo-per-user", "per-user", 0],
      ["demo-shared-users", "shared", 1],
    ]);
    const personalSims = await db().simulationControl.findMany({
      where: { experimentId: { in: personal.map((d) => d.id) } },
    });
    expect(personalSims.map((s) => s.personas)).toEqual([
      ["maya", "leo", "sam", "ava"],
      ["maya", "leo", "sam", "ava"],
    ]);

    const second = await seedFirstStart(env);
    expect(second).toEqual({});
    expect(await db().apiKey.count({ where: { name: "init (INIT_API_KEY)" } })).toBe(1);
    expect(await db().experiment.count({ where: { demo: true } })).toBe(5);
  });
});
