// Serving patterns cannot stall the shared proxy: a catastrophic pattern is refused at save with a 400 that
// names it, and one already stored (saved before this check) is matched in linear time, so the proxy — its own
// process here, as workers/serve runs it — keeps answering /healthz and the request itself.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db, type Prisma } from "../../../server/platform/db/client";
import { startFakeUpstream, type FakeUpstream } from "../../../bench/lib/fakeOpenaiUpstream";
import { startApiServer } from "../../helpers/apiServer";
import { api, makeKey, uniq } from "../../helpers/fixtures";
import { post, proxiedExperiment, tempDataDir } from "./setup";

const CATASTROPHIC = "^(\\w+\\s?)*$";

let fake: FakeUpstream;
let server: Awaited<ReturnType<typeof startApiServer>>;
let proc: ChildProcess | null = null;

beforeAll(async () => {
  fake = await startFakeUpstream();
  server = await startApiServer();
});
afterAll(async () => {
  proc?.kill("SIGKILL");
  await server.close();
  await fake.close();
});

describe("serving patterns (ReDoS)", () => {
  it("refuses a catastrophic or unsupported pattern at save with a 400 naming it", async () => {
    const admin = api(server.url, { bearer: await makeKey(["admin"]) });
    const created = await admin("POST", "/api/v1/experiments", {
      name: uniq("redos"),
      config: { serving: { sidePatterns: ["summarize", CATASTROPHIC] } },
    });
    expect(created.status).toBe(400);
    expect(created.body.error!.message).toContain(JSON.stringify(CATASTROPHIC));
    expect(JSON.stringify(created.body.error)).toContain("config.serving.sidePatterns.1");
    const ok = await admin("POST", "/api/v1/experiments", { name: uniq("redos"), config: {} });
    expect(ok.status).toBe(201);
    const patched = await admin("PATCH", `/api/v1/experiments/${ok.body.id}`, {
      config: { serving: { contextPatterns: ["(a)\\1"] } },
    });
    expect(patched.status).toBe(400);
    expect(patched.body.error!.message).toContain("(a)\\\\1");
  });

  it("matches a stored catastrophic pattern in linear time: /healthz and the request both answer", async () => {
    const experiment = await proxiedExperiment(fake);
    const row = await db().experiment.findUniqueOrThrow({ where: { id: experiment.id } });
    const config = row.config as { serving: Record<string, unknown> };
    config.serving = { ...config.serving, sidePatterns: [CATASTROPHIC], contextPatterns: [CATASTROPHIC] };
    await db().experiment.update({
      where: { id: experiment.id },
      data: { config: config as unknown as Prisma.InputJsonValue },
    });
    const key = await makeKey(["proxy"], experiment.id);
    proc = spawn(process.execPath, ["--import", "tsx", path.resolve("bench/proxy/proxyMain.ts")], {
      env: { ...process.env, DATA_DIR: await tempDataDir() },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const url = await new Promise<string>((resolve) =>
      createInterface({ input: proc!.stdout! }).once("line", (l) => resolve((JSON.parse(l) as { url: string }).url)),
    );
    // 40 word characters then a non-word one: ~2^40 steps for a backtracking engine.
    const chat = post(
      `${url}/v1/chat/completions`,
      {
        model: experiment.slug,
        messages: [{ role: "user", content: `${"a".repeat(40)}!` }],
      },
      { authorization: `Bearer ${key}` },
    );
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await chat).status).toBe(200);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });
});
