import { mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  loadCustomReward,
  PROBE_NEXT_STATE,
  PROBE_TURN,
  validateCustomReward,
} from "../../../server/judge/core/customReward";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "custom-reward-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function moduleFile(name: string, source: string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, source);
  return file;
}

describe("validateCustomReward", () => {
  it("accepts the shipped example and reports its probe answer", async () => {
    const result = await validateCustomReward("examples/custom-reward.ts", { baseDir: process.cwd() });
    // The probe asks for "shorter": the user vote is -1 and the example emits its brevity hint.
    expect(result).toEqual({
      ok: true,
      probe: { votes: [-1, 0], score: -1, hint: "Keep answers under 600 characters and lead with the direct answer." },
    });
  });

  it("rejects a missing file, a wrong extension and a module without a function", async () => {
    const missing = await validateCustomReward(path.join(dir, "nope.mjs"));
    expect(missing).toMatchObject({ ok: false, error: expect.stringMatching(/not found/) });
    const txt = await moduleFile("reward.txt", "export default 1");
    expect(await validateCustomReward(txt)).toMatchObject({ ok: false, error: expect.stringMatching(/must be \.ts/) });
    const noFn = await moduleFile("nofn.mjs", "export const reward = 42;");
    expect(await validateCustomReward(noFn)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/exports no function/),
    });
  });

  it("rejects a wrong result shape, a throwing function and one that never answers", async () => {
    const badShape = await moduleFile("bad.mjs", "export default async () => ({ votes: [2], score: 1 });");
    expect(await validateCustomReward(badShape)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/invalid result/),
    });
    const throws = await moduleFile("throws.mjs", "export async function reward() { throw new Error('boom'); }");
    expect(await validateCustomReward(throws)).toEqual({ ok: false, error: "boom" });
    const hangs = await moduleFile("hangs.mjs", "export default () => new Promise(() => {});");
    expect(await validateCustomReward(hangs, { timeoutMs: 50 })).toEqual({ ok: false, error: "timed out after 50 ms" });
  });
});

describe("loadCustomReward", () => {
  it("uses the named `reward` export and passes the turn and next state through", async () => {
    const file = await moduleFile(
      "echo.mjs",
      "export async function reward(turn, next) { return { votes: [turn.responseText.length > 5 ? 1 : -1], score: 1, hint: next.content }; }",
    );
    const fn = await loadCustomReward(file);
    expect(await fn(PROBE_TURN, PROBE_NEXT_STATE)).toEqual({ votes: [1], score: 1, hint: PROBE_NEXT_STATE.content });
  });

  it("re-reads a module after it is edited", async () => {
    const file = await moduleFile("edit.mjs", "export default async () => ({ votes: [1], score: 1 });");
    expect((await (await loadCustomReward(file))(PROBE_TURN, PROBE_NEXT_STATE)).score).toBe(1);
    await writeFile(file, "export default async () => ({ votes: [-1], score: -1 });");
    await utimes(file, new Date(), new Date(Date.now() + 5_000));
    expect((await (await loadCustomReward(file))(PROBE_TURN, PROBE_NEXT_STATE)).score).toBe(-1);
  });
});
