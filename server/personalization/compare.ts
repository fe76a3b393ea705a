// Base vs a user's adapter, side by side on the same prompts (the Users view's "Compare"): the user's held-out
// prompts (never trained on; their newest prompts when the gate holds nothing out), answered greedily by the frozen
// base and by the base with the user's served adapter. Embedded policy only: the web process loads the base once
// (train.ts baseModel) and merges the adapter for the call.
import * as tf from "@tensorflow/tfjs-core";
import type { z } from "zod";
import type { Principal } from "../access/principal";
import { loadExperimentFor } from "../access/scope";
import { ExperimentConfigSchema } from "../config/experimentConfig";
import { generate } from "../engine/generate";
import { adaptedParams, deserializeAdapter, disposeAdapted, disposeAdapter } from "../engine/lora";
import { db } from "../platform/db/client";
import { appError, conflict } from "../platform/errors";
import { reassembleMessages } from "../recording/reassemble";
import { isHeldOut, userSamples } from "./data";
import type { EndUserCompareInput } from "./schemas";
import { baseModel } from "./train";

/** The last user message of a recorded prompt, as the page shows it. */
function lastUserText(messages: unknown[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: unknown; content?: unknown };
    if (m?.role !== "user") continue;
    if (typeof m.content === "string") return m.content;
    if (Array.isArray(m.content))
      return m.content
        .map((p) => (typeof (p as { text?: unknown }).text === "string" ? (p as { text: string }).text : ""))
        .join("");
  }
  return "";
}

export async function compareEndUser(p: Principal, input: z.output<typeof EndUserCompareInput>) {
  const e = await loadExperimentFor(p, input.experimentId);
  const config = ExperimentConfigSchema.parse(e.config);
  if (config.personalization !== "per-user" || config.policy.kind !== "embedded")
    throw appError("adapter_not_servable", "side-by-side replies need a per-user experiment on the embedded policy");
  const served = await db().userAdapter.findFirst({
    where: { experimentId: e.id, endUserId: input.endUserId, state: "PROMOTED" },
    orderBy: { version: "desc" },
  });
  if (!served) throw conflict(`user '${input.endUserId}' is served the base: there is no adapter to compare`);
  const samples = await userSamples(e.id, input.endUserId);
  const heldOut = samples.filter((s) => isHeldOut(s.turnId, config.perUser.heldOutFraction));
  const chosen = (heldOut.length ? heldOut : samples).slice(-input.limit);
  const turns = await db().turn.findMany({
    where: { id: { in: chosen.map((s) => s.turnId) } },
    select: { id: true, sessionId: true, index: true, systemHash: true, turnType: true },
  });
  const prompts = new Map(
    await Promise.all(turns.map(async (t) => [t.id, lastUserText(await reassembleMessages(t))] as const)),
  );

  const base = await baseModel(config);
  const adapter = deserializeAdapter(new Uint8Array(served.weights), base.config);
  const params = tf.tidy(() => adaptedParams(base.params, adapter));
  try {
    const opts = { temperature: 0, maxTokens: input.maxTokens };
    const pairs = [];
    for (const s of chosen) {
      const [b, a] = [
        await generate(base, s.promptIds, opts),
        await generate({ config: base.config, params }, s.promptIds, opts),
      ];
      pairs.push({ turnId: s.turnId, prompt: prompts.get(s.turnId) ?? "", base: b.text, adapter: a.text });
    }
    return {
      endUserId: input.endUserId,
      adapterId: served.id,
      version: served.version,
      heldOut: heldOut.length > 0,
      pairs,
    };
  } finally {
    disposeAdapted(params, adapter);
    disposeAdapter(adapter);
  }
}
