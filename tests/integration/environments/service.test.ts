// The environment services on real Postgres: environments, versioned task-set imports with a split fixed by
// seed, 400s that name the bad file and field and write nothing, the oracle run recorded on each task
// (real bubblewrap), experiment scoping, and episodes read back with their steps.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Principal } from "../../../server/access/principal";
import { db } from "../../../server/platform/db/client";
import { AppError } from "../../../server/platform/errors";
import { EnvironmentCreateInput, OracleRunInput, TaskSetImportInput } from "../../../server/environments/schemas";
import {
  createEnvironment,
  getEpisode,
  getTaskSet,
  importTaskSet,
  listEnvironments,
  runOracle,
} from "../../../server/environments/service";
import { sandboxProvider } from "../../../server/environments/sandbox/registry";
import { splitOf } from "../../../server/environments/tasks/split";
import { ADMIN, deleteExperiments, makeExperiment } from "../../helpers/fixtures";

const work = mkdtempSync(path.join(tmpdir(), "ocrl-env-service-"));
afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
  await deleteExperiments();
});

const jsonl = readFileSync("examples/environments/toolcall/arithmetic.jsonl", "utf8");
function examplesArchive(): string {
  const out = path.join(work, "examples.tgz");
  spawnSync("tar", ["-C", "examples/environments/terminal", "-czf", out, "."]);
  return readFileSync(out).toString("base64");
}

async function rejected(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error("expected a rejection");
}

describe("environment services", () => {
  it("creates environments with validated limits, one name per experiment", async () => {
    const e = await makeExperiment();
    const env = await createEnvironment(
      ADMIN,
      EnvironmentCreateInput.parse({ experiment: e.slug, name: "terminal", limits: { wallSeconds: 20 } }),
    );
    expect(env).toMatchObject({ provider: "local-bwrap", network: "none", tools: ["bash"] });
    expect(env.limits).toMatchObject({ wallSeconds: 20, pids: 64, outputBytes: 16384 });
    expect(
      (await rejected(createEnvironment(ADMIN, EnvironmentCreateInput.parse({ experiment: e.id, name: "terminal" }))))
        .code,
    ).toBe("CONFLICT");
    expect(EnvironmentCreateInput.safeParse({ experiment: e.id, name: "x", network: "open" }).success).toBe(false);
    expect(EnvironmentCreateInput.safeParse({ experiment: e.id, name: "x", limits: { pids: 0 } }).success).toBe(false);
    expect((await listEnvironments(ADMIN, { experiment: e.id })).map((x) => x.name)).toEqual(["terminal"]);
    const audits = await db().auditLog.count({ where: { action: "environment.create", resourceId: env.id } });
    expect(audits).toBe(1);
  });

  it("imports task sets as versions with a split fixed by seed; a bad upload is a 400 that writes nothing", async () => {
    const e = await makeExperiment();
    const input = TaskSetImportInput.parse({
      experiment: e.id,
      name: "arith",
      format: "jsonl",
      text: jsonl,
      splitSeed: 7,
      heldOutFraction: 0.5,
    });
    const v1 = await importTaskSet(ADMIN, input);
    const v2 = await importTaskSet(ADMIN, input);
    expect([v1.version, v2.version]).toEqual([1, 2]);
    const set = await getTaskSet(ADMIN, { id: v1.id, version: 1 });
    expect(set.tasks.map((t) => [t.key, t.split])).toEqual(
      ["mul-17-23", "sum-3", "capital-fr", "price-total"].map((k) => [k, splitOf(7, k, 0.5)]),
    );
    const again = await getTaskSet(ADMIN, { id: v1.id });
    expect(again.version.version).toBe(2);
    expect(again.tasks.map((t) => t.split)).toEqual(set.tasks.map((t) => t.split));
    // Another seed moves some task (the split really depends on it).
    const keys = set.tasks.map((t) => t.key);
    expect([1, 2, 3, 4, 5].some((s) => keys.some((k) => splitOf(s, k, 0.5) !== splitOf(7, k, 0.5)))).toBe(true);

    const bad = await rejected(
      importTaskSet(ADMIN, { ...input, text: `${jsonl}{"id":"x","prompt":"p","answer":""}\n` }),
    );
    expect(bad.code).toBe("BAD_REQUEST");
    expect(bad.message).toMatch(/^tasks\.jsonl line 5: answer: /);
    const badArchive = await rejected(
      importTaskSet(ADMIN, { ...input, format: "harbor", archiveBase64: Buffer.from("nope").toString("base64") }),
    );
    expect(badArchive.message).toMatch(/^archive: /);
    expect((await db().taskSet.findUniqueOrThrow({ where: { id: v1.id } })).latestVersion).toBe(2);
    expect(
      TaskSetImportInput.safeParse({ experiment: e.id, name: "h", format: "harbor" }).error?.issues[0].path,
    ).toEqual(["archiveBase64"]);
  });

  it("keeps a bound key inside its own experiment", async () => {
    const mine = await makeExperiment();
    const other = await makeExperiment();
    const set = await importTaskSet(
      ADMIN,
      TaskSetImportInput.parse({ experiment: other.id, name: "s", format: "jsonl", text: jsonl }),
    );
    const bound: Principal = { ...ADMIN, kind: "apiKey", experimentId: mine.id } as Principal;
    expect((await rejected(getTaskSet(bound, { id: set.id }))).code).toBe("FORBIDDEN");
    expect((await rejected(listEnvironments(bound, { experiment: other.id }))).code).toBe("FORBIDDEN");
    expect((await rejected(getTaskSet(ADMIN, { id: "missing" }))).code).toBe("NOT_FOUND");
  });

  it("reads an episode back with its steps in order", async () => {
    const e = await makeExperiment();
    const env = await createEnvironment(ADMIN, EnvironmentCreateInput.parse({ experiment: e.id, name: "t" }));
    const set = await importTaskSet(
      ADMIN,
      TaskSetImportInput.parse({ experiment: e.id, name: "s", format: "jsonl", text: jsonl }),
    );
    const task = await db().task.findFirstOrThrow({ where: { setVersionId: set.versionId } });
    const ep = await db().episode.create({
      data: {
        experimentId: e.id,
        environmentId: env.id,
        taskId: task.id,
        status: "DONE",
        outcome: 1,
        steps: {
          create: [
            { index: 1, action: { tool: "calc", arguments: { expression: "17*23" } }, observation: { content: "391" } },
            { index: 0, action: { tool: "calc", arguments: { expression: "1+1" } }, observation: { content: "2" } },
          ],
        },
      },
    });
    const got = await getEpisode(ADMIN, { id: ep.id });
    expect(got.steps.map((s) => s.index)).toEqual([0, 1]);
    expect(got.task).toEqual({ key: task.key, kind: "toolcall", split: task.split });
  });
});

const availability = await sandboxProvider("local-bwrap").available();
describe.skipIf(!availability.ok)(`oracle runs${availability.ok ? "" : ` (skipped: ${availability.reason})`}`, () => {
  it("records each task's oracle status, for terminal and tool-call sets", async () => {
    const e = await makeExperiment();
    const env = await createEnvironment(
      ADMIN,
      EnvironmentCreateInput.parse({ experiment: e.id, name: "t", limits: { wallSeconds: 30 } }),
    );
    const terminal = await importTaskSet(
      ADMIN,
      TaskSetImportInput.parse({
        experiment: e.id,
        name: "terminal",
        format: "harbor",
        archiveBase64: examplesArchive(),
      }),
    );
    const r = await runOracle(
      ADMIN,
      OracleRunInput.parse({ taskSetId: terminal.id, environmentId: env.id, repeats: 1 }),
    );
    expect(r.results).toEqual([
      { key: "examples/count-errors", status: "verified" },
      { key: "examples/make-tree", status: "verified" },
      { key: "examples/sort-names", status: "verified" },
    ]);
    const rows = await db().task.findMany({ where: { setVersionId: terminal.versionId }, orderBy: { index: "asc" } });
    expect(rows.map((t) => t.oracleStatus)).toEqual(["verified", "verified", "verified"]);
    expect((rows[0].oracleResult as { commands: { phase: string }[] }).commands.map((c) => c.phase)).toEqual([
      "oracle",
      "verifier",
      "verifier",
    ]);
    const tools = await importTaskSet(
      ADMIN,
      TaskSetImportInput.parse({ experiment: e.id, name: "tools", format: "jsonl", text: jsonl }),
    );
    const t = await runOracle(ADMIN, OracleRunInput.parse({ taskSetId: tools.id, environmentId: env.id }));
    expect(t.results.map((x) => x.status)).toEqual(["verified", "verified", "verified", "verified"]);
    const other = await makeExperiment();
    const foreignEnv = await createEnvironment(
      ADMIN,
      EnvironmentCreateInput.parse({ experiment: other.id, name: "t" }),
    );
    expect(
      (await rejected(runOracle(ADMIN, OracleRunInput.parse({ taskSetId: tools.id, environmentId: foreignEnv.id }))))
        .code,
    ).toBe("NOT_FOUND");
  });
});
