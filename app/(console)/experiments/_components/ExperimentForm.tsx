"use client";
import { useState, type FormEvent, type ReactNode } from "react";
import { ExperimentCreateInput } from "../../../../server/experiments/schemas";
import "../../../../server/platform/zodMessages";
import type { FieldIssue } from "../../../_lib/errors";
import {
  BACKEND_HYPER_DEFAULTS,
  HyperparamsSchema,
  hyperDefaultsFor,
  METHOD_HYPER_DEFAULTS,
} from "../../../../server/config/experimentConfig";
import { getAt, setAt, type Json } from "./formState";
import { GpuGrid, SharedGpu } from "./GpuGrid";

export interface ExperimentFormValues {
  name: string;
  slug: string;
  description: string;
  config: Json;
}

interface Props {
  initial: ExperimentFormValues;
  secretsSet?: string[];
  submitLabel: string;
  slugEditable: boolean;
  onSubmit: (values: {
    name: string;
    slug?: string;
    description: string;
    config: unknown;
  }) => Promise<FieldIssue[] | string | null>;
}

const REFERENCE_HYPER = HyperparamsSchema.parse({});
const BACKEND_DEPENDENT = [
  ...new Set([
    ...Object.values(BACKEND_HYPER_DEFAULTS).flatMap((d) => Object.keys(d)),
    ...Object.values(METHOD_HYPER_DEFAULTS).flatMap((m) => Object.values(m).flatMap((d) => Object.keys(d ?? {}))),
  ]),
] as (keyof typeof REFERENCE_HYPER)[];

export function ExperimentForm({ initial, secretsSet = [], submitLabel, slugEditable, onSubmit }: Props) {
  const [values, setValues] = useState(initial);
  const [issues, setIssues] = useState<FieldIssue[]>([]);
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Number fields the user emptied. The state holds undefined there, which the schema would fill with
  // its default; on Edit that silently restored the old value, so an emptied field is an error instead.
  const [blank, setBlank] = useState<ReadonlySet<string>>(new Set());
  const cfg = values.config;
  const issueAt = (path: string) => issues.find((i) => i.path === path || i.path.startsWith(path + "."))?.message;
  const setCfg = (path: string, v: unknown) => setValues((s) => ({ ...s, config: setAt(s.config, path, v) }));

  const field = (label: string, path: string, input: ReactNode, hint?: string) => {
    const err = issueAt(path);
    return (
      <label className={`field${err ? " invalid" : ""}`} data-path={path}>
        <span>{label}</span>
        {input}
        {err ? (
          <span className="field-error" role="alert">
            {err}
          </span>
        ) : hint ? (
          <span className="muted" style={{ fontSize: 11 }}>
            {hint}
          </span>
        ) : null}
      </label>
    );
  };
  /** A number field; blank is an error unless the field is optional (blank leaves it unset). */
  const num = (label: string, path: string, step = "any", hint?: string, optional = false) =>
    field(
      label,
      `config.${path}`,
      <input
        type="number"
        step={step}
        name={path}
        value={String(getAt(cfg, path) ?? "")}
        onChange={(e) => {
          const empty = e.target.value === "";
          setBlank((b) => {
            const next = new Set(b);
            if (empty && !optional) next.add(path);
            else next.delete(path);
            return next;
          });
          setCfg(path, empty ? undefined : Number(e.target.value));
        }}
      />,
      hint,
    );
  /** A text field; `optional`: empty leaves the setting unset (its default), not an empty string. */
  const text = (label: string, path: string, placeholder = "", o: { optional?: boolean; hint?: string } = {}) =>
    field(
      label,
      `config.${path}`,
      <input
        type="text"
        name={path}
        placeholder={placeholder}
        value={String(getAt(cfg, path) ?? "")}
        onChange={(e) => setCfg(path, o.optional && e.target.value === "" ? undefined : e.target.value)}
      />,
      o.hint,
    );
  /** A boolean setting as an on/off select (each option says what it does); `fallback`: the value shown when unset. */
  const toggle = (label: string, path: string, off: string, on: string, fallback = false, hint?: string) =>
    field(
      label,
      `config.${path}`,
      <select
        name={path}
        value={String(getAt(cfg, path) ?? fallback)}
        onChange={(e) => setCfg(path, e.target.value === "true")}
      >
        <option value="false">{off}</option>
        <option value="true">{on}</option>
      </select>,
      hint,
    );
  /** perUser.windowUtc: train only within [from, to) UTC hours; both empty: any hour. */
  const windowField = () => {
    const w = getAt(cfg, "perUser.windowUtc") as { from: number; to: number } | null | undefined;
    const hour = (key: "from" | "to", label: string) => (
      <input
        type="number"
        min={0}
        max={23}
        step={1}
        aria-label={label}
        name={`perUser.windowUtc.${key}`}
        value={w ? String(w[key]) : ""}
        onChange={(e) => {
          const v = e.target.value === "" ? null : Number(e.target.value);
          const other = key === "from" ? "to" : "from";
          if (v === null) return setCfg("perUser.windowUtc", null);
          setCfg("perUser.windowUtc", { [other]: w?.[other] ?? (v + 8) % 24, [key]: v });
        }}
      />
    );
    return field(
      "Train within UTC hours",
      "config.perUser.windowUtc",
      <span style={{ display: "flex", gap: 6, alignItems: "center" }}>
        {hour("from", "Train from UTC hour")} to {hour("to", "Train until UTC hour")}
      </span>,
      "empty: any hour; the cap per minute is the train worker's TRAINER_PER_USER_MAX_PER_MINUTE",
    );
  };
  const select = (label: string, path: string, options: string[], onChange?: (v: string) => void) =>
    field(
      label,
      `config.${path}`,
      <select
        name={path}
        value={String(getAt(cfg, path) ?? options[0])}
        onChange={(e) => (onChange ? onChange(e.target.value) : setCfg(path, e.target.value))}
      >
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>,
    );
  const secret = (path: string) => {
    const id = path;
    const isSet = secretsSet.includes(id);
    return field(
      isSet ? "API key (set — leave empty to keep)" : "API key",
      `config.${path}`,
      <input
        type="password"
        name={path}
        autoComplete="off"
        value={String(getAt(cfg, path) ?? "")}
        onChange={(e) => setCfg(path, e.target.value === "" ? undefined : e.target.value)}
      />,
    );
  };

  const policyKind = String(getAt(cfg, "policy.kind") ?? "embedded");
  const judgeKind = String(getAt(cfg, "judge.backend.kind") ?? "heuristic");
  const trainerBackend = String(getAt(cfg, "trainer.backend") ?? "embedded");
  const method = String(getAt(cfg, "method") ?? "combine");
  const onSlime = trainerBackend === "ray-slime" || trainerBackend === "local-process";
  // Where each default comes from: the trainer backend's own for this method (measured), else OpenClaw-RL's.
  const origin = (key: keyof typeof REFERENCE_HYPER, what = "") => {
    const own = hyperDefaultsFor(trainerBackend, method)[key];
    const ref = `OpenClaw-RL default ${String(REFERENCE_HYPER[key] ?? "unset")}`;
    return [what, own !== undefined ? `${trainerBackend} trainer default ${String(own)} (measured); ${ref}` : ref]
      .filter(Boolean)
      .join(" · ");
  };
  // Switching the trainer or the method moves the fields still at the old default to the new one's.
  const switchDefaults = (next: { backend?: string; method?: string }) =>
    setValues((s) => {
      const [backend, nextMethod] = [next.backend ?? trainerBackend, next.method ?? method];
      let config = setAt(setAt(s.config, "trainer.backend", backend), "method", nextMethod);
      // The fine-tuning choice is hf-local's; the config refuses it on any other trainer.
      if (backend !== "hf-local") config = setAt(config, "trainer.finetune", undefined);
      const [was, now] = [hyperDefaultsFor(trainerBackend, method), hyperDefaultsFor(backend, nextMethod)];
      for (const key of BACKEND_DEPENDENT)
        if (getAt(s.config, `hyper.${key}`) === (was[key] ?? REFERENCE_HYPER[key]))
          config = setAt(config, `hyper.${key}`, now[key] ?? REFERENCE_HYPER[key]);
      return { ...s, config };
    });

  async function submit(e: FormEvent) {
    e.preventDefault();
    setFormError(null);
    // The whole input in one parse, with the schema the server uses, so every problem shows at once
    // (as REST reports them) instead of the slug's turn coming after the config's.
    const blankIssues: FieldIssue[] = [...blank]
      .filter((p) => getAt(values.config, p) === undefined)
      .map((p) => ({ path: `config.${p}`, message: "required" }));
    const local = ExperimentCreateInput.safeParse({
      name: values.name,
      slug: slugEditable && values.slug ? values.slug : undefined,
      description: values.description,
      config: values.config,
    });
    const localIssues = local.success
      ? []
      : local.error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message }));
    if (blankIssues.length || localIssues.length) {
      setIssues([...blankIssues, ...localIssues]);
      setFormError(
        `Please fix the ${blankIssues.length + localIssues.length === 1 ? "highlighted field" : `${blankIssues.length + localIssues.length} highlighted fields`}.`,
      );
      return;
    }
    setBusy(true);
    const result = await onSubmit({
      name: values.name,
      slug: values.slug || undefined,
      description: values.description,
      config: values.config,
    });
    setBusy(false);
    if (typeof result === "string") setFormError(result);
    else if (result?.length) {
      setIssues(result);
      setFormError("Please fix the highlighted fields.");
    } else setIssues([]);
  }

  return (
    <form onSubmit={submit} noValidate>
      {formError && (
        <div className="form-error" role="alert">
          {formError}
        </div>
      )}
      <div className="card">
        <h3>Experiment</h3>
        <div className="grid2">
          {field(
            "Name",
            "name",
            <input name="name" value={values.name} onChange={(e) => setValues({ ...values, name: e.target.value })} />,
          )}
          {field(
            "Slug (the proxy's model name)",
            "slug",
            <input
              name="slug"
              value={values.slug}
              disabled={!slugEditable}
              placeholder="derived from the name"
              onChange={(e) => setValues({ ...values, slug: e.target.value })}
            />,
          )}
          {select("Method", "method", ["combine", "grpo", "opd"], (m) => switchDefaults({ method: m }))}
          {select("Personalization", "personalization", ["shared", "per-user"])}
        </div>
        {getAt(cfg, "personalization") === "per-user" && (
          <div className="grid2">
            {select("New users are served", "perUser.newUsers", ["base", "shared"])}
            {num("Adapter rank", "perUser.rank", "1")}
            {num("Adapter alpha", "perUser.alpha", "1")}
            {num("Adapter learning rate", "perUser.lr", "0.001")}
            {num(
              "Hindsight demos per hinted turn",
              "perUser.hindsightSamples",
              "1",
              "the hinted base's replies to a corrected turn, trained on the user's question (0: off; not in the reference)",
            )}
            {num("Hindsight weight", "perUser.hindsightWeight", "0.1")}
            {select("Hindsight target", "perUser.hindsightTarget", ["teacher", "sampled"])}
            {select("Hindsight focus", "perUser.hindsightFocus", ["uniform", "hint"])}
            {num(
              "Teacher temperature (τ)",
              "perUser.hindsightTemperature",
              "0.05",
              "the hinted teacher's distribution a demonstration follows, sharpened below 1 (target: teacher; not in the reference)",
            )}
            {num(
              "Style prompts per step",
              "perUser.stylePrompts",
              "1",
              "public prompts of the base's own pool on which the hinted teacher shows the user's style (0: off; not in the reference)",
            )}
            {num(
              "Gradient norm bound",
              "perUser.gradClip",
              "0.1",
              "the adapter step's bound on the gradient's global norm (0: none)",
            )}
            {toggle(
              "Remembered hint",
              "perUser.rememberedHint",
              "off (the turn's hint alone)",
              "on (the user's latest other hint)",
              true,
              "a hint that only restates the question is replaced for the teacher by the user's latest other hint; not in the reference",
            )}
            {num(
              "KL to the base (β)",
              "perUser.baseKlCoef",
              "0.01",
              "the exact KL to the frozen base on the step's response positions (0: off)",
            )}
            {select(
              "KL to the base on (samples: the user's replies; all: the demonstrations too)",
              "perUser.baseKlScope",
              ["samples", "all"],
            )}
            {num(
              "Samples per adapter step",
              "perUser.minSamples",
              "1",
              "a user's new samples before their next version",
            )}
            {num("Most samples per version", "perUser.maxSamplesPerVersion", "1", "a backlog spreads over later ticks")}
            {num("Train when idle for (s)", "perUser.idleAfterS", "1", "0: as soon as due")}
            {num("Held-out fraction", "perUser.heldOutFraction", "0.05", "of each user's turns, for their gate")}
            {num(
              "Seed",
              "perUser.seed",
              "1",
              "fresh adapters and demonstrations; blank: from the experiment's id (the same seed replays a run)",
              true,
            )}
            {num("Gate tolerance", "perUser.gateTolerance", "0.01")}
            {windowField()}
          </div>
        )}
        <br />
        {field(
          "Description",
          "description",
          <textarea
            name="description"
            rows={2}
            value={values.description}
            onChange={(e) => setValues({ ...values, description: e.target.value })}
          />,
        )}
      </div>

      <div className="card">
        <h3>Policy (served model)</h3>
        <div className="grid2">
          {select("Backend", "policy.kind", ["embedded", "openai", "sglang"], (v) =>
            setCfg(
              "policy",
              v === "embedded" ? { kind: v, checkpoint: "models/base" } : { kind: v, baseUrl: "", model: "" },
            ),
          )}
          {policyKind === "embedded" ? (
            text("Checkpoint", "policy.checkpoint", "models/base")
          ) : (
            <>
              {text("Base URL", "policy.baseUrl", "http://127.0.0.1:30001/v1")}
              {text("Model", "policy.model", "Qwen3-4B")}
              {secret("policy.apiKey")}
              {trainerBackend === "hf-local" &&
                select(
                  "Serve versions as LoRA adapters hot-loaded into",
                  "policy.loraAdapters",
                  ["off", "sglang", "vllm"],
                  (v) => setCfg("policy.loraAdapters", v === "off" ? undefined : v),
                )}
              {trainerBackend === "hf-local" &&
                getAt(cfg, "policy.loraAdapters") &&
                getAt(cfg, "personalization") === "per-user" &&
                num(
                  "Users' adapters kept loaded",
                  "policy.loraMaxLoaded",
                  "1",
                  "at most the engine's --max-loaded-loras (unset: 8)",
                )}
            </>
          )}
          {num("Max new tokens per reply", "serving.maxTokens", "1")}
          {select("Turn type when the client sends none", "serving.defaultTurnType", ["main", "side"])}
        </div>
      </div>

      <div className="card">
        <h3>Judge (PRM) and teacher</h3>
        <div className="grid2">
          {select("Backend", "judge.backend.kind", ["heuristic", "openai", "sglang", "custom"], (v) =>
            setCfg(
              "judge.backend",
              v === "heuristic"
                ? { kind: v }
                : v === "custom"
                  ? { kind: v, modulePath: "" }
                  : { kind: v, baseUrl: "", model: "" },
            ),
          )}
          {judgeKind === "custom" && text("Custom reward module", "judge.backend.modulePath", "custom-reward.ts")}
          {(judgeKind === "openai" || judgeKind === "sglang") && (
            <>
              {text("Base URL", "judge.backend.baseUrl", "http://127.0.0.1:30002/v1")}
              {text("Model", "judge.backend.model", "Qwen3-4B-Thinking")}
              {secret("judge.backend.apiKey")}
            </>
          )}
          {num("Votes (m)", "judge.votes", "1")}
          {num("Temperature", "judge.temperature")}
          {select("Hint selection (OPD)", "judge.hintSelection", ["longest", "shortest"])}
          {/* Upstream's --hint-m: hint calls per turn apart from the votes; unset = the votes. */}
          {select(
            "Hint calls (OPD)",
            "judge.hintM",
            ["same as votes", ...Array.from({ length: 16 }, (_, i) => String(i + 1))],
            (v) => setCfg("judge.hintM", v === "same as votes" ? undefined : Number(v)),
          )}
          {num("Max tokens", "judge.maxTokens", "1")}
        </div>
        {policyKind !== "embedded" && (
          <>
            <br />
            {field(
              "Policy chat template (tokenizer_config.json chat_template; the teacher renders the hinted context with it — empty: Qwen ChatML)",
              "config.judge.chatTemplate",
              <textarea
                name="judge.chatTemplate"
                rows={3}
                spellCheck={false}
                value={String(getAt(cfg, "judge.chatTemplate") ?? "")}
                placeholder="{%- if tools %} … {%- endif %}"
                onChange={(e) => setCfg("judge.chatTemplate", e.target.value === "" ? undefined : e.target.value)}
              />,
            )}
          </>
        )}
      </div>

      <div className="card">
        <h3>Training</h3>
        <div className="grid2">
          {num("Learning rate", "hyper.lr", "any", origin("lr"))}
          {num("Batch size", "hyper.batchSize", "1", origin("batchSize", "samples per optimizer step"))}
          {num("eps-clip", "hyper.epsClip")}
          {num("eps-clip-high", "hyper.epsClipHigh")}
          {num("KL coefficient", "hyper.klCoef")}
          {num("w_opd", "hyper.wOpd")}
          {num("w_rl", "hyper.wRl")}
          {num("Max staleness (versions)", "hyper.maxStaleness", "1")}
          {select("Stale samples", "hyper.stalePolicy", ["drop", "importance-weight"])}
          {num("Checkpoints kept", "hyper.keepCheckpoints", "1")}
          {select(
            "OPD estimator",
            "hyper.opdEstimator",
            // full needs the teacher's whole distribution in-process; Tinker distils with the sampled estimator only.
            trainerBackend === "embedded" || trainerBackend === "hf-local"
              ? ["sampled", "topk", "full"]
              : onSlime
                ? ["sampled", "topk"]
                : ["sampled"],
          )}
          <span className="muted" style={{ fontSize: 11 }}>
            {origin(
              "opdEstimator",
              onSlime
                ? "sampled: teacher − π on sampled tokens; topk: upstream's top-K OPD with the in-job teacher (method opd), or its hybrid GRPO + top-K with one teacher pass per hint candidate (method combine)"
                : "sampled: teacher − π on sampled tokens; topk: reverse KL over the teacher's top-K + tail; full: all tokens",
            )}
          </span>
          {getAt(cfg, "hyper.opdEstimator") === "topk" && num("Top-K", "hyper.topK", "1", origin("topK"))}
          {onSlime &&
            getAt(cfg, "hyper.opdEstimator") === "topk" &&
            num(
              "Top-K difference clip (0 = off)",
              "hyper.topkDiffClip",
              "any",
              origin(
                "topkDiffClip",
                "clamps log π_teacher − log π_old in slime's top-K loss (OPENCLAW_TOPK_ADV_DIFF_CLIP)",
              ),
            )}
          {select("OPD teacher", "hyper.teacherSource", trainerBackend === "embedded" ? ["base", "current"] : ["base"])}
          {num(
            "OPD advantage clamp (0 = off)",
            "hyper.advClamp",
            "any",
            origin("advClamp", "caps |teacher − π| of the sampled estimator (embedded; combine's loss on slime)"),
          )}
          {num(
            "PPO dual-clip c (0 = off)",
            "hyper.dualClip",
            "any",
            origin("dualClip", "caps the loss of negative-advantage tokens at −A·c (slime --eps-clip-c)"),
          )}
          {toggle("Advantage whitening", "hyper.normalizeAdvantages", "off (A = r)", "on (baseline over the batch)")}
          <span className="muted" style={{ fontSize: 11 }}>
            {origin(
              "normalizeAdvantages",
              "advantages minus the batch mean, over their standard deviation (slime --normalize-advantages)",
            )}
          </span>
          {toggle(
            "Hint memory (OPD, Combine)",
            "hyper.hintMemory",
            "off (distil corrected turns only)",
            "on (reuse the user's latest accepted hint)",
          )}
          <span className="muted" style={{ fontSize: 11 }}>
            {origin(
              "hintMemory",
              "an end user's (X-User-Id) turns without a hint of their own are distilled with that user's latest accepted hint in the teacher's context; departs from the reference",
            )}
          </span>
          {trainerBackend === "embedded" && (
            <>
              {select("Advantage baseline groups", "hyper.advantageGroups", ["batch", "context"])}
              <span className="muted" style={{ fontSize: 11 }}>
                {origin(
                  "advantageGroups",
                  "context: whiten first replies, replies after a correction and after an approval apart (departs from the reference's batch)",
                )}
              </span>
              {num(
                "PPO epochs per batch",
                "hyper.ppoEpochs",
                "1",
                origin("ppoEpochs", "1–4 updates per batch, π_old fixed after the first (the reference takes 1)"),
              )}
              {num(
                "KL to the base, β (0 = off)",
                "hyper.baseKlCoef",
                "any",
                origin("baseKlCoef", "exact full-vocabulary KL(π ‖ base) at every reply position: anchors the content"),
              )}
              {num(
                "Hindsight demonstrations per hinted turn (0 = off)",
                "hyper.hindsightSamples",
                "1",
                origin(
                  "hindsightSamples",
                  "replies of the hinted teacher (OPD, Combine) or the reply approved after a correction (GRPO), trained on the un-hinted prompt; departs from the reference",
                ),
              )}
              {num("Hindsight weight", "hyper.hindsightWeight", "any", origin("hindsightWeight"))}
              {select("Hindsight target (OPD, Combine)", "hyper.hindsightTarget", ["sampled", "teacher"])}
              <span className="muted" style={{ fontSize: 11 }}>
                {origin(
                  "hindsightTarget",
                  "a demonstration trains toward its sampled tokens, or toward the hinted teacher's whole distribution at each of its positions (topk/full estimators)",
                )}
              </span>
              {select("Hindsight focus (OPD, Combine)", "hyper.hindsightFocus", ["uniform", "hint"])}
              <span className="muted" style={{ fontSize: 11 }}>
                {origin(
                  "hindsightFocus",
                  "every position of a demonstration alike, or each weighted by how far the hint moved the teacher from the base there (topk/full estimators, with the teacher target)",
                )}
              </span>
              {num(
                "Hindsight: least mean teacher log-prob",
                "hyper.hindsightMinLogprob",
                "any",
                origin(
                  "hindsightMinLogprob",
                  "OPD, Combine: a teacher reply becomes a demonstration only if the hinted teacher is this confident in it (drops babble); −10 keeps all",
                ),
              )}
              {num(
                "Hindsight: least gain from the hint (nats)",
                "hyper.hindsightMinGain",
                "any",
                origin(
                  "hindsightMinGain",
                  "OPD, Combine: a teacher reply becomes a demonstration only if the hint made it likelier than the base finds it without the hint, by more than this (summed over the reply); blank: off",
                ),
                true,
              )}
              {num(
                "Hindsight: teacher's sampling temperature",
                "hyper.hindsightSampleTemperature",
                "0.05",
                origin(
                  "hindsightSampleTemperature",
                  "OPD, Combine: the temperature the hinted teacher samples its demonstrations at; below 1 nearer its likeliest reply (1: as the teacher is); departs from the reference",
                ),
              )}
              {num(
                "Style prompts per step (OPD, Combine)",
                "hyper.stylePrompts",
                "1",
                origin(
                  "stylePrompts",
                  "public prompts of the base's own pool on which the hinted teacher shows the batch's style hints, trained like the hindsight demonstrations (0: off; not in the reference)",
                ),
              )}
              {toggle(
                "Remembered style hints (OPD, Combine)",
                "hyper.rememberedStyleHints",
                "off (the batch's style hints only)",
                "on (and each user's latest the run heard)",
              )}
              <span className="muted" style={{ fontSize: 11 }}>
                {origin(
                  "rememberedStyleHints",
                  "a batch without a user's correction still gets the style prompts, with that user's latest style hint the run heard; not in the reference",
                )}
              </span>
              {toggle(
                "Conversation hints (OPD, Combine)",
                "hyper.conversationHints",
                "off (the turn's hint alone)",
                "on (and the conversation's earlier hints)",
              )}
              <span className="muted" style={{ fontSize: 11 }}>
                {origin(
                  "conversationHints",
                  "the hinted teacher (topk/full OPD, hindsight) also gets the hints of the user's earlier replies in the conversation; departs from the reference",
                )}
              </span>
              {toggle(
                "User style hints (OPD, Combine)",
                "hyper.userStyleHints",
                "off (the conversation's hints only)",
                "on (and the user's latest style hint)",
              )}
              <span className="muted" style={{ fontSize: 11 }}>
                {origin(
                  "userStyleHints",
                  "a reply corrected for its content alone has the hinted teacher also hear the latest style hint the run heard from the same X-User-Id; departs from the reference",
                )}
              </span>
              {num(
                "ExOPD λ (1 = off)",
                "hyper.opdExtrapolation",
                "any",
                origin(
                  "opdExtrapolation",
                  "topk/full estimators: teacher = softmax(log base + λ·(log hinted − log base)); 1 is the reference",
                ),
              )}
            </>
          )}
          {toggle("LoRA", "lora.enabled", "off", "on")}
          {getAt(cfg, "lora.enabled") === true && num("LoRA rank", "lora.rank", "1")}
          {getAt(cfg, "lora.enabled") === true && num("LoRA alpha", "lora.alpha", "1")}
        </div>
      </div>

      <div className="card">
        <h3>Evaluation and promotion</h3>
        <div className="grid2">
          {toggle(
            "Held-out evaluation",
            "evaluation.enabled",
            "off",
            "on: versions scored on the eval set (Evaluation page)",
          )}
          {getAt(cfg, "evaluation.enabled") === true && (
            <>
              {num(
                "Evaluate every N-th version",
                "evaluation.every",
                "1",
                "a gated experiment evaluates every candidate",
                true,
              )}
              {num("Replies per prompt (K)", "evaluation.k", "1", undefined, true)}
              {text("Eval set", "evaluation.set", "the experiment's first set", { optional: true })}
            </>
          )}
          {select("Promotion", "serving.promotion", ["always", "gated"])}
          {getAt(cfg, "serving.promotion") === "gated" && (
            <>
              {num(
                "Gate tolerance",
                "serving.gate.tolerance",
                "0.01",
                "promote when its score ≥ the served version's − tolerance (0…1)",
                true,
              )}
              {num("Gate floor", "serving.gate.floor", "0.01", "and ≥ this score (empty: none)", true)}
              {text("Gate set", "serving.gate.set", "the eval set", {
                optional: true,
                hint: "an eval set of the gate's own, e.g. the questions users ask, so the reported score is not the one versions were picked on",
              })}
              {toggle(
                "Confirm on fresh seeds",
                "serving.gate.confirm",
                "off",
                "on: winner and served version compared again on a fresh draw",
                false,
                "two more evaluations per promotion, against the winner's curse of a noisy gate",
              )}
            </>
          )}
          {toggle(
            "Automatic rollback",
            "serving.autoRollback.enabled",
            "off",
            "on: when the served version's live reward falls below its parent's",
          )}
          {getAt(cfg, "serving.autoRollback.enabled") === true &&
            num("Rollback margin (judge scale −1…1)", "serving.autoRollback.margin", "0.05", undefined, true)}
        </div>
      </div>

      <div className="card">
        <h3>Trainer backend and GPU split</h3>
        <div className="grid2">
          {select("Trainer", "trainer.backend", ["embedded", "ray-slime", "local-process", "tinker", "hf-local"], (b) =>
            switchDefaults({ backend: b }),
          )}
          {trainerBackend === "hf-local" && (
            <div className="notice">
              One process on <b>one GPU</b> (transformers + peft): it serves the policy, judges and teaches on the
              frozen base, and trains a LoRA adapter (or the whole model: fine-tuning full, or auto where it fits),
              time-sharing the GPU. Set the policy to SGLang at the address it serves on (
              <code>HF_LOCAL_SERVE_PORT</code>, default 30001); the launch preview shows its memory estimate.
            </div>
          )}
          {trainerBackend === "hf-local" &&
            select(
              "Fine-tuning (host default: HF_LOCAL_FINETUNE)",
              "trainer.finetune",
              ["host default", "lora", "full", "auto"],
              (v) => setCfg("trainer.finetune", v === "host default" ? undefined : v),
            )}
          {trainerBackend === "tinker" && (
            <div className="notice">
              Tinker trains LoRA adapters on its own service: it needs <b>your own</b> Tinker service key (
              <code>TINKER_API_KEY</code> on the trainer host). No local GPUs are used.
            </div>
          )}
          {trainerBackend === "ray-slime" &&
            text("Ray dashboard address", "trainer.rayAddress", "http://head-node:8265")}
        </div>
        {(trainerBackend === "ray-slime" || trainerBackend === "local-process") && (
          <>
            <br />
            <div className="grid2">
              {num("Nodes", "trainer.gpu.nodes", "1")}
              {num("GPUs per node", "trainer.gpu.gpusPerNode", "1")}
              {num("Actor GPUs", "trainer.gpu.actorGpus", "1")}
              {num("Rollout GPUs", "trainer.gpu.rolloutGpus", "1")}
              {num("PRM GPUs (0 = external)", "trainer.gpu.prmGpus", "1")}
              {num("GPUs per rollout engine", "trainer.gpu.rolloutGpusPerEngine", "1")}
              {num("GPUs per PRM engine", "trainer.gpu.prmGpusPerEngine", "1")}
            </div>
            <br />
            <GpuGrid split={getAt(cfg, "trainer.gpu") ?? {}} />
          </>
        )}
        {trainerBackend === "hf-local" && (
          <>
            <br />
            <SharedGpu />
          </>
        )}
      </div>

      <div className="toolbar">
        <button className="primary" type="submit" disabled={busy}>
          {busy ? "Saving…" : submitLabel}
        </button>
      </div>
    </form>
  );
}
