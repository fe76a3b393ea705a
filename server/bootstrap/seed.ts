// First-start initialisation: an admin, a proxy API key and the demo (three experiments, one per method, each
// with a run and simulated users on; and the per-user demo beside its shared twin; server/simulation/demo.ts). Idempotent; headless setups pass
// INIT_ADMIN_EMAIL / INIT_ADMIN_PASSWORD / INIT_API_KEY (as Langfuse's LANGFUSE_INIT_*).
import { settings, type EnvSource } from "../platform/env";
import { randomBytes } from "node:crypto";
import { db } from "../platform/db/client";
import { createUser } from "../users/service";
import { createApiKey } from "../apiKeys/service";
import { createExperiment } from "../experiments/service";
import { startRun } from "../runs/service";
import { seedDemoEnvironments } from "../environments/demo";
import {
  DEMO_EVAL_SET,
  DEMO_EXPERIMENTS,
  DEMO_GATE_SET,
  DEMO_PERSONAL_EXPERIMENTS,
  DEMO_PERSONAL_SIMULATION,
  DEMO_SIMULATION,
  demoConfig,
} from "../simulation/demo";
import { createPersonaEvalSet } from "../evaluation/service";
import { enableSimulation } from "../simulation/service";
import type { Principal } from "../access/principal";

export interface SeedResult {
  admin?: { email: string; password: string | null };
  proxyKey?: string;
  initKey?: string;
  /** slugs of the demo experiments created now */
  demoExperiments?: string[];
}

/**
 * A single-policy demo experiment's eval sets: Leo's held-out questions, which the Evaluation page reports, and the
 * questions he asks, which the promotion gate reads (server/simulation/demo.ts DEMO_GATE_SET).
 */
export async function createDemoEvalSets(experimentId: string): Promise<void> {
  await createPersonaEvalSet(null, { experimentId, name: DEMO_EVAL_SET });
  await createPersonaEvalSet(null, { experimentId, name: DEMO_GATE_SET, questions: "asked" });
}

export async function seedFirstStart(source?: EnvSource): Promise<SeedResult> {
  const envVars = settings("seed", source);
  const result: SeedResult = {};
  if ((await db().user.count()) === 0) {
    const email = envVars.INIT_ADMIN_EMAIL;
    const password = envVars.INIT_ADMIN_PASSWORD ?? randomBytes(9).toString("base64url");
    await createUser(null, { email, password, role: "ADMIN" });
    result.admin = { email, password: envVars.INIT_ADMIN_PASSWORD ? null : password };
  }
  const admin = await db().user.findFirst({ where: { role: "ADMIN" }, orderBy: { createdAt: "asc" } });
  const actor: Principal | null = admin ? { kind: "user", userId: admin.id, email: admin.email, role: "ADMIN" } : null;

  if (envVars.INIT_API_KEY && !(await db().apiKey.findFirst({ where: { name: "init (INIT_API_KEY)" } }))) {
    await createApiKey(null, { name: "init (INIT_API_KEY)", scopes: ["admin"] }, envVars.INIT_API_KEY);
    result.initKey = envVars.INIT_API_KEY;
  }
  if (!(await db().experiment.findFirst({ where: { demo: true } })) && actor) {
    result.demoExperiments = [];
    for (const d of DEMO_EXPERIMENTS) {
      if (await db().experiment.findUnique({ where: { slug: d.slug }, select: { id: true } })) continue; // the user's own
      const e = await createExperiment(
        actor,
        { name: d.name, slug: d.slug, description: d.description, config: demoConfig(d) },
        { demo: true },
      );
      await startRun(actor, e.id); // PENDING until the trainer worker picks it up (RUNNING within a second or two)
      await enableSimulation(e.id, DEMO_SIMULATION); // SIMULATE=0 still keeps the worker quiet
      await createDemoEvalSets(e.id);
      // The agentic tracks' demo sits with the GRPO experiment (its episodes train under its run).
      if (d.slug === "demo-grpo") await seedDemoEnvironments(actor, e.id);
      result.demoExperiments.push(e.slug);
    }
    for (const d of DEMO_PERSONAL_EXPERIMENTS) {
      if (await db().experiment.findUnique({ where: { slug: d.slug }, select: { id: true } })) continue;
      const config = demoConfig(d);
      const e = await createExperiment(
        actor,
        { name: d.name, slug: d.slug, description: d.description, config },
        { demo: true },
      );
      // A per-user experiment keeps its base frozen: the train worker's per-user scheduler trains its adapters.
      if (config.personalization === "shared") await startRun(actor, e.id);
      await enableSimulation(e.id, DEMO_PERSONAL_SIMULATION);
      result.demoExperiments.push(e.slug);
    }
  }
  if (!(await db().apiKey.findFirst({ where: { name: "default proxy key" } }))) {
    const k = await createApiKey(null, { name: "default proxy key", scopes: ["proxy"] });
    result.proxyKey = k.key;
  }
  return result;
}
