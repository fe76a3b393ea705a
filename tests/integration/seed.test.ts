import { describe, expect, it } from "vitest";
import { db } from "../../server/platform/db/client";
import { seedFirstStart } from "../../server/bootstrap/seed";
import { verifyApiKey } from "../../server/access/apiKeys";
import { authenticate } from "../../server/users/service";

// The test database is shared by the run; other files create users, so this asserts on what seeding adds.
describe("first-start seed", () => {
  it("creates the INIT admin, the INIT admin-scope key and the demo experiments once, and is idempotent", async () => {
    const hadUsers = (await db().user.count()) > 0;
    const env = {
      INIT_ADMIN_EMAIL: "init-admin@example.test",
      INIT_ADMIN_PASSWORD: "init-password-123",
      INIT_API_KEY: "ocrl_0123abcd_initkeyinitkeyinitkeyinit",
    };
    const first = await seedFirstStart(env);
    if (!hadUsers) {
      expect(first.admin).toEqual({ email: env.INIT_ADMIN_EMAIL, password: null });
      expect((await authenticate(env.INIT_ADMIN_EMAIL, env.INIT_ADMIN_PASSWORD)).role).toBe("ADMIN");
    }
    expect(first.initKey).toBe(env.INIT_API_KEY);
    const principal = await verifyApiKey(env.INIT_API_KEY);
    expect(principal).toMatchObject({ kind: "apiKey", scopes: ["admin"], experimentId: null });
    expect((await db().experiment.findUnique({ where: { slug: "demo" } }))?.demo).toBe(true);
    // One demo per method, each with a run waiting for the trainer and simulated users switched on.
    const demos = await db().experiment.findMany({ where: { demo: true }, include: { runs: true } });
    expect(demos.map((d) => (d.config as { method: string }).method).sort()).toEqual(["combine", "grpo", "opd"]);
    expect(demos.map((d) => d.runs.map((r) => r.status))).toEqual([["PENDING"], ["PENDING"], ["PENDING"]]);
    const sims = await db().simulationControl.findMany({ where: { experimentId: { in: demos.map((d) => d.id) } } });
    expect(sims.map((s) => [s.enabled, s.personas])).toEqual([
      [true, ["leo"]],
      [true, ["leo"]],
      [true, ["leo"]],
    ]);

    const second = await seedFirstStart(env);
    expect(second).toEqual({});
    expect(await db().apiKey.count({ where: { name: "init (INIT_API_KEY)" } })).toBe(1);
    expect(await db().experiment.count({ where: { demo: true } })).toBe(3);
  });
});
