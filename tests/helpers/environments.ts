// Shared setup of the environment episode tests (pool, GUI, harness, dispatch): the committed Harbor
// examples as a task set of an experiment, and the scripted stand-in agent a harness starts in the sandbox.
import { db } from "../../server/platform/db/client";
import { harnessSchema, type Harness } from "../../server/environments/harness/schema";
import { writeTaskSetVersion } from "../../server/environments/service";
import { parseTasks } from "../../server/environments/tasks/import";
import { ADMIN } from "./fixtures";

/** examples/environments/terminal as the set `examples` (nothing held out); task ids by key. */
export async function examplesTaskSet(experimentId: string) {
  const tasks = parseTasks({ format: "harbor", folder: "examples/environments/terminal" });
  const set = await db().$transaction((tx) =>
    writeTaskSetVersion(tx, ADMIN, {
      experimentId,
      name: "examples",
      format: "harbor",
      splitSeed: 0,
      heldOutFraction: 0,
      tasks,
    }),
  );
  const rows = await db().task.findMany({ where: { setVersionId: set.versionId } });
  const taskId = (key: string) => {
    const row = rows.find((r) => r.key === key);
    if (!row) throw new Error(`no example task ${key}`);
    return row.id;
  };
  return { taskSetId: set.id, taskId };
}

/** A terminal pool's tool call (terminal-rl's CAMEL `shell_exec`). */
export const shellCall = (command: string) => ({
  toolCalls: [{ name: "shell_exec", arguments: JSON.stringify({ id: "s", command }) }],
});

/** The count-errors task's right and wrong commands. */
export const RIGHT = `awk '$2 == "ERROR"' /app/data/service.log | wc -l > /app/answer.txt`;
export const WRONG = "grep -c ERROR /app/data/service.log > /app/answer.txt";

// A stand-in agent, a black box: it reads only the variables its harness sets, asks its policy for one shell
// command, runs it in /app, reports the output, and prints the policy's last word.
const AGENT = `import { execSync } from "node:child_process";
import { readFileSync } from "node:fs";
const base = process.env.OPENAI_BASE_URL;
const messages = [{ role: "user", content: readFileSync(process.argv[2], "utf8") }];
async function ask() {
  const r = await fetch(base + "/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer " + process.env.OPENAI_API_KEY },
    body: JSON.stringify({ model: process.env.OPENAI_MODEL, messages }),
  });
  if (!r.ok) {
    console.log("policy refused: " + r.status);
    process.exit(0);
  }
  const m = (await r.json()).choices[0].message;
  messages.push({ role: "assistant", content: m.content });
  return m.content;
}
const command = await ask();
let out;
try {
  out = execSync(command, { cwd: "/app", encoding: "utf8", shell: "/bin/bash" });
} catch (e) {
  out = String(e.stdout ?? "") + String(e.stderr ?? "");
}
messages.push({ role: "user", content: "output:\\n" + out });
console.log(await ask());
`;

export const scriptedAgentHarness = (turns: number): Harness =>
  harnessSchema.parse({
    name: "scripted",
    command: "node /tmp/harness/agent.mjs {instruction_file}",
    instruction: "file",
    env: { baseUrl: ["OPENAI_BASE_URL"], apiKey: ["OPENAI_API_KEY"], model: ["OPENAI_MODEL"] },
    files: [{ path: "agent.mjs", template: AGENT }],
    budget: { wallSeconds: 60, turns, maxTokens: 256 },
  });

/** Node's fetch instantiates WebAssembly, which reserves ~10 GiB of address space: a harness needs room. */
export const HARNESS_LIMITS = { memoryMb: 32_768, pids: 128, wallSeconds: 60 };
