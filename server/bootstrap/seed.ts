// First-start initialisation: an admin, a proxy API key and a demo experiment. Idempotent; headless
// setups pass INIT_ADMIN_EMAIL / INIT_ADMIN_PASSWORD / INIT_API_KEY (as Langfuse's LANGFUSE_INIT_*).
import { randomBytes } from "node:crypto";
import { db } from "../db/client";
import { createUser } from "../users/service";
import { createApiKey } from "../apiKeys/service";
import { createExperiment } from "../experiments/service";
import { ExperimentConfigSchema } from "../experiments/config";
import type { Principal } from "../auth/principal";

export interface SeedResult {
  admin?: { email: string; password: string | null };
  proxyKey?: string;
  initKey?: string;
  demoExperiment?: string;
}

export async function seedFirstStart(envVars: NodeJS.ProcessEnv = process.env): Promise<SeedResult> {
  const result: SeedResult = {};
  if ((await db().user.count()) === 0) {
    const email = envVars.INIT_ADMIN_EMAIL ?? "admin@localhost";
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
    const e = await createExperiment(
      actor,
      {
        name: "Demo: personal assistant (combine)",
        slug: "demo",
        description: "Embedded policy, heuristic judge and CPU trainer: learns simulated users' preferences from their replies.",
        config: ExperimentConfigSchema.parse({ method: "combine", hyper: { lr: 3e-4, batchSize: 16 } }),
      },
      { demo: true },
    );
    result.demoExperiment = e.slug;
  }
  if (!(await db().apiKey.findFirst({ where: { name: "default proxy key" } }))) {
    const k = await createApiKey(null, { name: "default proxy key", scopes: ["proxy"] });
    result.proxyKey = k.key;
  }
  return result;
}
