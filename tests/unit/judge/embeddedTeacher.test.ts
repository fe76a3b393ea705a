// The embedded teacher reads a request exactly as the policy did (server/engine/request.ts): a "function"
// message is a tool message and an unreadable tool definition is skipped, so a turn the policy served is
// never rejected by its teacher, and the teacher scores the very context the student answered.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeBaseCheckpoint, TINY } from "../../../bench/lib/baseCheckpoint";
import { loadCheckpoint } from "../../../server/engine/checkpoint";
import { disposeModel } from "../../../server/engine/model";
import { scoreResponse } from "../../../server/engine/score";
import { encode, END_ID, renderChat } from "../../../server/engine/tokenizer";
import { createEmbeddedTeacher } from "../../../server/judge/worker/embeddedTeacher";

let dir = "";
let base = "";
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "embedded-teacher-"));
  // A context long enough that the whole request (tools included) fits: nothing is dropped by engine/fit.ts.
  base = await makeBaseCheckpoint(dir, 4, { ...TINY, ctx: 256 });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("embedded teacher", () => {
  it("maps function messages to tool messages and skips a bad tool definition, as the policy path does", async () => {
    const good = { type: "function", function: { name: "lookup", parameters: { type: "object" } } };
    const messages = [
      { role: "user", content: "What is in my notes?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "lookup", arguments: "{}" } }],
      },
      { role: "function", name: "lookup", content: "nothing yet" },
      { role: "user", content: "ok, and?" },
    ];
    const response = [...encode("Try again later."), END_ID];
    const scored = await createEmbeddedTeacher(base).score(messages as never, response, {
      tools: [good, { type: "function" }],
    });
    const model = (await loadCheckpoint(base)).model;
    const asTool = messages.map((m) => (m.role === "function" ? { ...m, role: "tool" } : m));
    const expected = scoreResponse(
      model,
      renderChat(asTool as never, { addGenerationPrompt: true, tools: [good] as never }),
      response,
    );
    disposeModel(model);
    expect(scored).toHaveLength(response.length);
    scored.forEach((lp, i) => expect(lp).toBeCloseTo(expected[i]!, 5));
  });

  it("still rejects a message no chat template can render", async () => {
    await expect(
      createEmbeddedTeacher(base).score([{ role: "robot", content: "beep" }] as never, [END_ID]),
    ).rejects.toThrow(/cannot render/);
  });
});
