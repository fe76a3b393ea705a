import { mkdir, mkdtemp, rm, symlink, utimes, writeFile } from "node:fs/promises";
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

/** A module in the test's extensions directory; returns its path relative to it, as a config names it. */
async function moduleFile(name: string, source: string): Promise<string> {
  await writeFile(path.join(dir, name), source);
  return name;
}

describe("validateCustomReward", () => {
  it("accepts the shipped example and reports its probe answer", async () => {
    const result = await validateCustomReward("custom-reward.ts");
    // The probe asks for "shorter": the user vote is -1 and the example emits its brevity hint.
    expect(result).toEqual({
      ok: true,
      probe: { votes: [-1, 0], score: -1, hint: "Keep answers under 600 characters and lead with the direct answer." },
    });
  });

  it("rejects a missing file, a wrong extension and a module without a function", async () => {
    const missing = await validateCustomReward("nope.mjs", { dir });
    expect(missing).toMatchObject({ ok: false, error: expect.stringMatching(/not found/) });
    const txt = await moduleFile("reward.txt", "export default 1");
    expect(await validateCustomReward(txt, { dir })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/must be \.ts/),
    });
    const noFn = await moduleFile("nofn.mjs", "export const reward = 42;");
    expect(await validateCustomReward(noFn, { dir })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/exports no function/),
    });
  });

  it("rejects a wrong result shape, a throwing function and one that never answers", async () => {
    const badShape = await moduleFile("bad.mjs", "export default async () => ({ votes: [2], score: 1 });");
    expect(await validateCustomReward(badShape, { dir })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/invalid result/),
    });
    const throws = await moduleFile("throws.mjs", "export async function reward() { throw new Error('boom'); }");
    expect(await validateCustomReward(throws, { dir })).toEqual({ ok: false, error: "boom" });
    const hangs = await moduleFile("hangs.mjs", "export default () => new Promise(() => {});");
    expect(await validateCustomReward(hangs, { dir, timeoutMs: 50 })).toEqual({
      ok: false,
      error: "timed out after 50 ms",
    });
  });
});

describe("loadCustomReward", () => {
  it("uses the named `reward` export and passes the turn and next state through", async () => {
    const file = await moduleFile(
      "echo.mjs",
      "export async function reward(turn, next) { return { votes: [turn.responseText.length > 5 ? 1 : -1], score: 1, hint: next.content }; }",
    );
    const fn = await loadCustomReward(file, { dir });
    expect(await fn(PROBE_TURN, PROBE_NEXT_STATE)).toEqual({ votes: [1], score: 1, hint: PROBE_NEXT_STATE.content });
  });

  it("re-reads a module after it is edited", async () => {
    const file = await moduleFile("edit.mjs", "export default async () => ({ votes: [1], score: 1 });");
    expect((await (await loadCustomReward(file, { dir }))(PROBE_TURN, PROBE_NEXT_STATE)).score).toBe(1);
    await writeFile(path.join(dir, file), "export default async () => ({ votes: [-1], score: -1 });");
    await utimes(path.join(dir, file), new Date(), new Date(Date.now() + 5_000));
    expect((await (await loadCustomReward(file, { dir }))(PROBE_TURN, PROBE_NEXT_STATE)).score).toBe(-1);
  });
});

describe("custom modules load only from EXTENSIONS_DIR", () => {
  it("refuses absolute paths, '..', links out of the directory and other extensions, naming only the configured path", async () => {
    const outside = await mkdtemp(path.join(os.tmpdir(), "outside-"));
    try {
      await writeFile(path.join(outside, "evil.mjs"), "export default async () => ({ votes: [1], score: 1 });");
      const ext = path.join(dir, "ext");
      await mkdir(ext, { recursive: true });
      await symlink(path.join(outside, "evil.mjs"), path.join(ext, "link.mjs"));
      await writeFile(path.join(ext, "ok.mjs"), "export default async () => ({ votes: [1], score: 1 });");
      const refused = async (p: string, why: RegExp) => {
        const err = (await loadCustomReward(p, { dir: ext }).catch((e: Error) => e)) as Error;
        expect(err).toBeInstanceOf(Error);
        expect(err.message).toMatch(why);
        // Only what the config wrote: never where the directory or the link's target is on the host.
        expect(err.message.replace(p, "")).not.toMatch(/\/tmp\//);
      };
      await refused(path.join(outside, "evil.mjs"), /must be relative/);
      await refused("../../evil.mjs", /must not contain '\.\.'/);
      await refused("link.mjs", /leaves EXTENSIONS_DIR/);
      await refused("scripts/postinstall.json", /must be \.ts/);
      await refused("missing.mjs", /not found in EXTENSIONS_DIR/);
      expect(await (await loadCustomReward("ok.mjs", { dir: ext }))(PROBE_TURN, PROBE_NEXT_STATE)).toEqual({
        votes: [1],
        score: 1,
      });
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});
