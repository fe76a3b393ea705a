// The per-user gate for versions a GPU trainer wrote (hf-local per user: PEFT folders; Tinker per user: sampler
// paths; or registered by hand): the embedded gate (train.ts) cannot load them, so the engine that serves them
// scores them. A version
// registered while its user has held-out turns is a CANDIDATE (service.ts addServedAdapterVersion); a gate step here
// (the train worker's per-user loop, workers/train/perUser.ts) loads it into the engine under a name of its own,
// scores the user's held-out replies' token log-probs with it and with the served version (or the base), and
// promotes it (the served one SUPERSEDED, announced on the userAdapter channel) or rejects it; both names are
// unloaded again. The score and the rule are the embedded gate's (gateScore.ts), the requests the judge's teacher
// clients (judge/core/teacherClients.ts: SGLang `/generate` with `return_logprob`/`logprob_start_len`/`lora_path`,
// vLLM `/v1/completions` with `echo`/`logprobs` and the adapter as `model`), the load/unload calls lora.ts's; all
// are checked against the fields extracted from the engines' source (tests/fixtures/lora/*.json).
// A Tinker experiment's engine is the bridge's endpoint (integrations/tinker/serve.py), which speaks the same SGLang
// routes: the LoRA load/unload for a user's tinker:// sampler path, and `/generate` scoring answered by the SDK's
// SamplingClient.compute_logprobs.
import { audit } from "../access/audit";
import { ExperimentConfigSchema, type ExperimentConfig } from "../config/experimentConfig";
import { unsealConfig, type SealedSecrets } from "../config/secrets";
import { ChatMessageSchema } from "../judge/core/schemas";
import { createSglangTeacher, createVllmTeacher, type TeacherScorer } from "../judge/core/teacherClients";
import { db } from "../platform/db/client";
import { adapterDirProblem, TINKER_SAMPLER_PATH } from "../platform/extensions";
import { loadAdapterCall, unloadAdapterCall, type LoraEngine } from "../proxy/upstreams/lora";
import { engineCall } from "../proxy/upstreams/loraServing";
import { announceAdapterChange } from "./announce";
import { heldOutTurns, type HeldOutTurn } from "./data";
import { heldOutScore, passesGate } from "./gateScore";
import { activePerUserExperiments } from "./experiments";

/** How long one engine call of the gate may take (a load reads a folder; a score is one forward pass). */
const CALL_TIMEOUT_MS = 120_000;

/** Whether this experiment's user versions are gated on the engine: LoRA serving (SGLang/vLLM, or Tinker's bridge
 * speaking SGLang's routes) and a held-out split. */
export function engineGateApplies(config: ExperimentConfig): boolean {
  return (
    config.personalization === "per-user" &&
    config.policy.kind !== "embedded" &&
    !!config.policy.loraAdapters &&
    config.perUser.heldOutFraction > 0
  );
}

export type EngineGateResult =
  | {
      decided: true;
      adapterId: string;
      endUserId: string;
      version: number;
      state: "PROMOTED" | "REJECTED";
      evalScore: number | null;
      servedScore: number | null;
    }
  | { decided: false; adapterId: string; endUserId: string; version: number; reason: string };

/** The engine as a log-prob scorer: the base's model name and key, the adapter named per call (ScoreOptions.lora). */
function scorerFor(config: ExperimentConfig): {
  engine: LoraEngine;
  baseUrl: string;
  apiKey?: string;
  scorer: TeacherScorer;
} {
  const p = config.policy;
  if (p.kind === "embedded" || !p.loraAdapters) throw new Error("the engine gate needs an engine serving LoRA");
  const apiKey = p.apiKey || undefined;
  // SGLang: prompts rendered as Qwen ChatML (the teacher client's default, exact for Qwen2.5/Qwen3 instruct); vLLM:
  // the server applies the model's own chat template (/tokenize with messages).
  const scorer =
    p.loraAdapters === "sglang"
      ? createSglangTeacher({ baseUrl: p.baseUrl, apiKey })
      : createVllmTeacher({ baseUrl: p.baseUrl, model: p.model, apiKey, template: "server" });
  return { engine: p.loraAdapters, baseUrl: p.baseUrl, apiKey, scorer };
}

/** Per-token log-probs of every held-out reply with `lora` (null: the base). */
async function scoreTurns(scorer: TeacherScorer, turns: readonly HeldOutTurn[], lora: string | null) {
  const out: { reward: number; logprobs: number[] }[] = [];
  for (const t of turns) {
    const messages = t.messages.map((m) => ChatMessageSchema.parse(m));
    const logprobs = await scorer.score(messages, t.response, {
      ...(t.tools ? { tools: t.tools } : {}),
      ...(lora ? { lora } : {}),
    });
    if (logprobs.length) out.push({ reward: t.reward, logprobs });
  }
  return out;
}

/**
 * Decide one CANDIDATE version. Engine trouble (unreachable, a folder it refuses, a bad answer) leaves it a
 * CANDIDATE for the next step, with the reason: nothing is promoted that was not scored.
 */
export async function gateCandidate(adapterId: string): Promise<EngineGateResult> {
  const c = await db().userAdapter.findUniqueOrThrow({
    where: { id: adapterId },
    include: { experiment: { select: { config: true, secrets: true } } },
  });
  const head = { adapterId: c.id, endUserId: c.endUserId, version: c.version };
  if (c.state !== "CANDIDATE" || !c.path) return { ...head, decided: false, reason: "not a candidate folder" };
  const config = unsealConfig(
    ExperimentConfigSchema.parse(c.experiment.config),
    (c.experiment.secrets ?? {}) as SealedSecrets,
  );
  const where = { experimentId: c.experimentId, endUserId: c.endUserId };
  const served = await db().userAdapter.findFirst({
    where: { ...where, state: "PROMOTED" },
    orderBy: { version: "desc" },
  });
  const turns = engineGateApplies(config)
    ? await heldOutTurns(c.experimentId, c.endUserId, config.perUser.heldOutFraction)
    : [];

  let evalScore: number | null = null;
  let servedScore: number | null = null;
  let promote = true; // no held-out turns (or the gate off since): promoted as an ungated version is
  if (turns.length) {
    const { engine, baseUrl, apiKey, scorer } = scorerFor(config);
    const call = (x: ReturnType<typeof loadAdapterCall>) =>
      engineCall({ baseUrl, apiKey, timeoutMs: CALL_TIMEOUT_MS }, x);
    // Names of the gate's own (not the proxy's `ua-<id>`): the proxy's bookkeeping of what it loaded stays true.
    const loaded: string[] = [];
    const load = async (id: string, path: string) => {
      // Checked at use as the proxy does (userLora.ts): a folder against the operator's ADAPTER_DIRS; a Tinker
      // sampler path is resolved by the bridge at Tinker, never a path on a disk.
      const problem = TINKER_SAMPLER_PATH.test(path) ? null : await adapterDirProblem(path);
      if (problem) throw new Error(`adapter folder ${problem}`);
      const name = `gate-${id}`;
      await call(unloadAdapterCall(engine, name)).catch(() => {}); // left loaded by a step that died
      await call(loadAdapterCall(engine, { name, path }));
      loaded.push(name);
      return name;
    };
    try {
      const candidate = await load(c.id, c.path);
      const reference = served?.path ? await load(served.id, served.path) : null;
      evalScore = heldOutScore(await scoreTurns(scorer, turns, candidate));
      servedScore = heldOutScore(await scoreTurns(scorer, turns, reference));
    } catch (err) {
      return { ...head, decided: false, reason: (err as Error).message };
    } finally {
      for (const name of loaded) await call(unloadAdapterCall(engine, name)).catch(() => {});
    }
    promote = passesGate(evalScore, servedScore, config.perUser.gateTolerance);
  }

  const decided = await db().$transaction(async (tx) => {
    // Decided once: a second gate step on the same candidate (two workers) changes nothing.
    const claimed = await tx.userAdapter.updateMany({
      where: { id: c.id, state: "CANDIDATE" },
      data: { state: promote ? "PROMOTED" : "REJECTED", evalScore, servedScore, decidedAt: new Date() },
    });
    if (!claimed.count) return false;
    if (promote) {
      // The version served now (another one may have been promoted since the scores): it is what this one replaces.
      const now = await tx.userAdapter.findFirst({
        where: { ...where, state: "PROMOTED", id: { not: c.id } },
        orderBy: { version: "desc" },
      });
      if (now)
        await tx.userAdapter.update({ where: { id: now.id }, data: { state: "SUPERSEDED", decidedAt: new Date() } });
      await tx.userAdapter.update({ where: { id: c.id }, data: { parentId: now?.id ?? null } });
    }
    const after = { state: promote ? "PROMOTED" : "REJECTED", evalScore, servedScore, heldOutTurns: turns.length };
    await audit(tx, null, "endUser.adapter.gate", "UserAdapter", c.id, { state: "CANDIDATE" }, after);
    return true;
  });
  if (!decided) return { ...head, decided: false, reason: "decided by another gate step" };
  if (promote) announceAdapterChange(c.experimentId, c.endUserId);
  return { ...head, decided: true, state: promote ? "PROMOTED" : "REJECTED", evalScore, servedScore };
}

/**
 * The gate step over active per-user experiments (`experimentIds`, all when empty) served by SGLang/vLLM or
 * Tinker: every CANDIDATE version (a folder or a sampler path), oldest first per user, so a user's versions are
 * decided in the order they were made (a user whose oldest one stays undecided waits with the rest for the next step).
 */
export async function gateEngineCandidates(experimentIds: readonly string[] = []): Promise<EngineGateResult[]> {
  const active = await activePerUserExperiments(experimentIds);
  if (!active.length) return [];
  const candidates = await db().userAdapter.findMany({
    where: { state: "CANDIDATE", path: { not: null }, experimentId: { in: active.map((e) => e.id) } },
    orderBy: [{ experimentId: "asc" }, { endUserId: "asc" }, { version: "asc" }],
    select: { id: true, experimentId: true, endUserId: true },
  });
  const out: EngineGateResult[] = [];
  const waiting = new Set<string>();
  for (const c of candidates) {
    const user = `${c.experimentId}\u0000${c.endUserId}`;
    if (waiting.has(user)) continue;
    const r = await gateCandidate(c.id);
    if (!r.decided) waiting.add(user);
    out.push(r);
  }
  return out;
}
