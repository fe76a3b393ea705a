// The wire of OpenClaw-RL's environment pools, as the fork's servers speak it (fixtures:
// tests/fixtures/pools/*.json, extracted from toininoi/openclaw-rl@f48ac35 by
// integrations/contracts/extract_pool_protocols.py). Every answer is JSON with `ok`; a refusal carries
// `error` (and, for terminal's capacity refusals, `code` with HTTP 429). An unknown lease is not its own
// status: the servers answer 500 with the KeyError's text ("Unknown run_lease_id: …", "Unknown lease_id: …"),
// which is how upstream's own client recognises it too (terminal-rl/env_client.py `close`).
import { z } from "zod";

export const POOL_PROTOCOLS = ["terminal", "swe", "gui"] as const;
export type PoolProtocol = (typeof POOL_PROTOCOLS)[number];

/** The constant start of each server's unknown-lease KeyError (the fixtures' `unknown_lease_messages`). */
export const UNKNOWN_LEASE: Record<PoolProtocol, string> = {
  terminal: "Unknown run_lease_id:",
  swe: "Unknown lease_id:",
  gui: "Unknown lease_id:",
};

/** terminal-rl's CapacityError codes (pool_server.py), answered with 429. */
export const CAPACITY_CODES = ["TASK_SLOTS_EXHAUSTED", "RUN_SLOTS_EXHAUSTED"] as const;

/** swe and gui refuse a full pool with a 500 whose error starts so (the fixtures' `capacity_messages`). */
export const CAPACITY_MESSAGES: Record<PoolProtocol, readonly string[]> = {
  terminal: [],
  swe: ["All exec nodes are full or unhealthy. nodes="],
  gui: ["Pool exhausted:"],
};

const okTrue = z.literal(true);

export const answers = {
  refusal: z.looseObject({ ok: z.literal(false), error: z.string().default(""), code: z.string().optional() }),
  terminal: {
    allocate: z.looseObject({ ok: okTrue, lease_id: z.string().min(1), reused: z.boolean() }),
    reset: z.looseObject({ ok: okTrue, user_msg: z.string(), tool_schemas: z.array(z.unknown()) }),
    exec_tool: z.looseObject({ ok: okTrue, observation: z.string() }),
    evaluate: z.looseObject({ ok: okTrue, score: z.number() }),
    close: z.looseObject({ ok: okTrue, found: z.boolean() }),
  },
  swe: {
    allocate: z.looseObject({
      ok: okTrue,
      lease_id: z.string().min(1),
      container_id: z.string(),
      node_url: z.string(),
    }),
    // The exec server's /container/exec answer, forwarded as is (ok is false when the command timed out).
    exec: z.looseObject({
      ok: z.boolean(),
      output: z.string().default(""),
      returncode: z.number(),
      error: z.string().optional(),
    }),
    diff: z.looseObject({ ok: z.boolean(), patch: z.string().default(""), returncode: z.number().optional() }),
    evaluate: z.looseObject({ ok: z.boolean(), resolved: z.boolean().default(false), output: z.string().default("") }),
    close: z.looseObject({ ok: okTrue }),
  },
  gui: {
    allocate: z.looseObject({ ok: okTrue, lease_id: z.string().min(1), env_id: z.string(), reused: z.boolean() }),
    observation: z.looseObject({ screenshot_b64: z.string().nullable().default(null) }),
    reset: z.looseObject({ ok: okTrue, observation: z.looseObject({}) }),
    step: z.looseObject({
      ok: okTrue,
      observation: z.looseObject({}),
      reward: z.number().default(0),
      done: z.boolean().default(false),
      info: z.record(z.string(), z.unknown()).default({}),
    }),
    evaluate: z.looseObject({ ok: okTrue, score: z.number() }),
    close: z.looseObject({ ok: okTrue }),
  },
  heartbeat: z.looseObject({ ok: okTrue }),
} as const;
