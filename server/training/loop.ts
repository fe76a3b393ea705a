// The embedded trainer: per live run, collect samples; once `batchSize` effective ones wait, take ONE
// optimizer step from the version the experiment serves (its ACTIVE version, or the base checkpoint),
// write the checkpoint atomically, commit the step (commit.ts), then announce the version on Redis and
// prune old checkpoints. Everything a restart needs is in Postgres and on disk: the weights and Adam
// state of the ACTIVE version, run.lastStep, and which samples have trained; a step that did not commit
// simply happens again. Paused runs collect (so the batch fill stays visible) but never step.
import { promises as fs } from "node:fs";
import path from "node:path";
import { db } from "../platform/db/client";
import { STARTED_RUN_STATUSES } from "../platform/db/runStatus";
import { publish } from "../platform/bus/pubsub";
import { initBackend } from "../engine/backend";
import { loadCheckpoint, loadPromptPool, saveCheckpoint, type LoadedCheckpoint } from "../engine/checkpoint";
import { loadCustomLoss, type CustomLossFn } from "../engine/losses";
import { disposeModel, type PolicyModel } from "../engine/model";
import { Adam } from "../engine/optimizer";
import { trainStep, type TrainHyper } from "../engine/train";
import { ExperimentConfigSchema, type ExperimentConfig } from "../config/experimentConfig";
import type { TeacherScorer } from "../judge/core/teacherClients";
import { createEmbeddedTeacher } from "../judge/worker/embeddedTeacher";
import { activeVersion, nextVersion, type ActiveVersion } from "../policyVersions/active";
import { dirBytes, newCheckpointDir, pruneCheckpoints } from "./checkpoints";
import { commitStep, type CommitOutcome } from "./commit";
import { ArrivalRate } from "./eta";
import { publishMetrics, recordMetrics, stepMetrics, type Point } from "./metrics";
import { batchFill, collectSamples, nextBatch } from "./samples";
import { TRAINER_EXCLUDE, type BatchFill } from "./schemas";
import { rememberStyleHints } from "./styleDemos";
import { buildBatch } from "./trainInputs";

export interface TrainerOptions {
  log?: (...args: unknown[]) => void;
  /** where relative base checkpoints and custom loss modules resolve (the repository root) */
  baseDir?: string;
  /** checkpoints go to <dataDir>/checkpoints (default DATA_DIR) */
  dataDir?: string;
  microBatchSize?: number;
  /** Adam(W) decoupled weight decay (reference: 0.1, β 0.9/0.98) */
  weightDecay?: number;
  /** how often batch/fill and batch/eta_s are published; persisted when they change, or every 30 s */
  fillEveryMs?: number;
  /**
   * Runs after a step trained from the ACTIVE version it read and before its commit: where a concurrent
   * promote or rollback lands in production. Tests use it to make that race happen (never set otherwise).
   */
  beforeCommit?: (step: { runId: string; experimentId: string; parentVersion: number }) => Promise<void>;
}

interface Weights {
  version: number;
  model: PolicyModel;
  optimizer: Adam;
}

interface RunState {
  runId: string;
  experimentId: string;
  config: ExperimentConfig;
  weights: Weights | null;
  ref: PolicyModel | null;
  /** the base checkpoint's prompt pool (style demonstrations), read once per run */
  promptPool?: string[];
  /** each end user's latest style hint heard by this run (hyper.rememberedStyleHints), most recent last */
  styleHints: Map<string | null | undefined, string>;
  customLoss: CustomLossFn | undefined;
  teacher: TeacherScorer | null;
  watermark: Date | null;
  collectedVersion: number | null;
  rate: ArrivalRate;
  fillPublishedAt: number;
  fillPersisted: { ready: number; at: number } | null;
}

export interface StepSummary {
  step: number;
  version: number;
  parentVersion: number;
  outcome: CommitOutcome["status"];
  checkpointPath: string;
  metrics: Record<string, number>;
}

export interface TickResult {
  /** null when the run is not live */
  fill: BatchFill | null;
  step: StepSummary | null;
}

/** The worker's CPU manners (workers/train/main.ts; bench/train/serving.ts reproduces them). */
export const TRAINER_NICE = 19;
export const REST_AFTER_STEP_MS = 250;

const PERSIST_FILL_EVERY_MS = 30_000;

export class Trainer {
  private readonly states = new Map<string, RunState>();
  private readonly baseDir: string;
  private readonly log: (...args: unknown[]) => void;

  constructor(private readonly opts: TrainerOptions = {}) {
    this.baseDir = opts.baseDir ?? process.cwd();
    this.log = opts.log ?? (() => {});
  }

  /** Runs this trainer holds state for. */
  get runIds(): string[] {
    return [...this.states.keys()];
  }

  /** One pass over a run: collect, report the batch fill, and take a step when a batch is ready. */
  async tick(runId: string): Promise<TickResult> {
    const run = await db().run.findUnique({
      where: { id: runId },
      select: { id: true, experimentId: true, status: true, config: true, lastStep: true },
    });
    if (!run || !STARTED_RUN_STATUSES.includes(run.status)) {
      this.release(runId);
      return { fill: null, step: null };
    }
    const state = await this.stateFor(run);
    const active = await activeVersion(run.experimentId);
    // After a step of ours only new labels and the effective samples' staleness can change; any other
    // version move (start, promote, rollback) may revive stale-dropped samples: refresh them all.
    const since = state.collectedVersion === active.version ? state.watermark : null;
    const collected = await collectSamples(runId, { since });
    state.watermark = collected.watermark;
    state.collectedVersion = collected.currentVersion;
    const fill = await batchFill(runId);
    state.rate.observe(Date.now(), run.lastStep * fill.needed + fill.ready);
    await this.reportFill(state, fill, run.lastStep);
    if (run.status !== "RUNNING" || fill.ready < fill.needed) return { fill, step: null };
    const step = await this.step(state, run.lastStep + 1, active);
    if (step) {
      state.collectedVersion = step.outcome === "ACTIVE" ? step.version : state.collectedVersion;
      await this.reportFill(
        state,
        await batchFill(runId),
        step.outcome === "discarded" ? run.lastStep : step.step,
        true,
      );
    }
    return { fill, step };
  }

  /** Forget a run (stopped, finished, or handled elsewhere) and free its tensors. */
  release(runId: string): void {
    const s = this.states.get(runId);
    if (!s) return;
    this.dropWeights(s);
    if (s.ref) disposeModel(s.ref);
    this.states.delete(runId);
  }

  close(): void {
    for (const id of this.runIds) this.release(id);
  }

  private async stateFor(run: { id: string; experimentId: string; config: unknown }): Promise<RunState> {
    let s = this.states.get(run.id);
    if (s) return s;
    await initBackend();
    const config = ExperimentConfigSchema.parse(run.config);
    if (config.policy.kind !== "embedded")
      throw new Error(`run ${run.id} serves a ${config.policy.kind} policy: the embedded trainer cannot train it`);
    // "file.ts#name": the file is relative to the operator's EXTENSIONS_DIR (engine/losses.ts).
    const customLoss = config.customLossPath ? await loadCustomLoss(config.customLossPath) : undefined;
    s = {
      runId: run.id,
      experimentId: run.experimentId,
      config,
      weights: null,
      ref: null,
      customLoss,
      teacher: null,
      styleHints: new Map(),
      watermark: null,
      collectedVersion: null,
      rate: new ArrivalRate(),
      fillPublishedAt: 0,
      fillPersisted: null,
    };
    this.states.set(run.id, s);
    return s;
  }

  private basePath(config: ExperimentConfig): string {
    if (config.policy.kind !== "embedded") throw new Error("not an embedded policy");
    return path.resolve(this.baseDir, config.policy.checkpoint);
  }

  /** Weights and Adam state of the version the experiment serves (a fresh Adam on the base checkpoint). */
  private async loadWeights(s: RunState, active: ActiveVersion): Promise<Weights> {
    this.dropWeights(s);
    if (active.version > 0 && !active.checkpointPath)
      throw new Error(`active version ${active.version} has no checkpoint on disk`);
    const loaded: LoadedCheckpoint = await loadCheckpoint(active.checkpointPath ?? this.basePath(s.config));
    const optimizer = new Adam({
      lr: s.config.hyper.lr,
      beta1: 0.9,
      beta2: 0.98,
      weightDecay: this.opts.weightDecay ?? 0.1,
    });
    if (active.version > 0 && loaded.optimizerState) {
      optimizer.setState(loaded.optimizerState, Object.fromEntries(loaded.meta.params.map((p) => [p.name, p.shape])));
    }
    s.weights = { version: active.version, model: loaded.model, optimizer };
    this.log(
      `run ${s.runId}: training from version ${active.version} (${active.checkpointPath ?? "base " + this.basePath(s.config)})`,
    );
    return s.weights;
  }

  private dropWeights(s: RunState): void {
    if (!s.weights) return;
    disposeModel(s.weights.model);
    s.weights.optimizer.dispose();
    s.weights = null;
  }

  private async refModel(s: RunState): Promise<PolicyModel> {
    s.ref ??= (await loadCheckpoint(this.basePath(s.config))).model;
    return s.ref;
  }

  private async step(s: RunState, step: number, active: ActiveVersion): Promise<StepSummary | null> {
    const { config } = s;
    const t0 = performance.now();
    const weights = s.weights?.version === active.version ? s.weights : await this.loadWeights(s, active);
    const rows = await nextBatch(s.runId, config.hyper.batchSize);
    if (rows.length < config.hyper.batchSize) return null;
    const built = await buildBatch(rows, {
      runId: s.runId,
      config,
      currentVersion: active.version,
      model: weights.model,
      teacher: () => (s.teacher ??= createEmbeddedTeacher(this.basePath(config), this.baseDir)),
      base: config.hyper.hindsightSamples > 0 ? await this.refModel(s) : undefined,
      seed: step,
      promptPool: config.hyper.stylePrompts > 0 ? (s.promptPool ??= await loadPromptPool(this.basePath(config))) : [],
      rememberedStyleHints: s.styleHints,
    });
    rememberStyleHints(s.styleHints, built.styleHints);
    if (built.dropped.length) {
      // Labels changed since collection: record why, and let the next tick fill the batch again.
      for (const { id, decision } of built.dropped) {
        await db().sample.updateMany({
          where: { id, stepId: null },
          data: {
            kind: decision.kind,
            reward: decision.reward,
            labelSource: decision.labelSource,
            excluded: true,
            excludeReason: decision.excludeReason,
            staleness: decision.staleness,
          },
        });
      }
      return null;
    }
    const ref = await this.refModel(s);
    const hyper: TrainHyper = {
      lr: config.hyper.lr,
      epsClip: config.hyper.epsClip,
      epsClipHigh: config.hyper.epsClipHigh,
      klCoef: config.hyper.klCoef,
      entropyCoef: config.hyper.entropyCoef,
      wOpd: config.hyper.wOpd,
      wRl: config.hyper.wRl,
      advClamp: config.hyper.advClamp,
      dualClip: config.hyper.dualClip,
      opdEstimator: config.hyper.opdEstimator,
      topK: config.hyper.topK,
      normalizeAdvantages: config.hyper.normalizeAdvantages,
      advantageGroups: config.hyper.advantageGroups,
      baseKlCoef: config.hyper.baseKlCoef,
      opdExtrapolation: config.hyper.opdExtrapolation,
      wDemo: config.hyper.hindsightWeight,
      demoFocus: config.hyper.hindsightFocus,
      epochs: config.hyper.ppoEpochs,
      gradClip: config.hyper.gradClip,
      // Samples carry several hint candidates only under the train-time modes (trainInputs.ts).
      hintSelection:
        config.judge.hintSelection === "token_optimal" || config.judge.hintSelection === "sequence_optimal"
          ? config.judge.hintSelection
          : "shortest",
      microBatchSize: this.opts.microBatchSize ?? 8,
      // Decoupled PPO: the ratio is to the behaviour log-probs recorded when the turn was served (it sees
      // staleness); the OPD advantage is teacher − the current weights, not teacher − an older policy.
      oldLogprobs: "decoupled",
    };
    // topk/full: the teacher's distribution comes from the frozen base or the current weights (before the update).
    const teacherModel = config.hyper.teacherSource === "current" ? weights.model : ref;
    try {
      this.log(`run ${s.runId}: step ${step} on ${built.samples.length} samples from version ${active.version}`);
      const tTrain = performance.now();
      const trainMetrics = await trainStep(
        weights.model,
        weights.optimizer,
        [...built.samples, ...built.demos],
        hyper,
        {
          refModel: ref,
          customLoss: s.customLoss,
          teacherModel,
        },
      );
      const trainStepMs = performance.now() - tTrain;

      const version = await nextVersion(s.experimentId);
      const dir = newCheckpointDir(s.experimentId, version, this.opts.dataDir);
      const tSave = performance.now();
      const meta = await saveCheckpoint(dir, weights.model, {
        version,
        step,
        optimizer: weights.optimizer,
        extra: { runId: s.runId, parentVersion: active.version },
      });
      const checkpointMs = performance.now() - tSave;

      const prev = await db().trainingStep.findFirst({
        where: { runId: s.runId },
        orderBy: { step: "desc" },
        select: { createdAt: true },
      });
      const runCreated = (await db().run.findUniqueOrThrow({ where: { id: s.runId }, select: { createdAt: true } }))
        .createdAt;
      const sinceLast = { runId: s.runId, excluded: true, createdAt: { gt: prev?.createdAt ?? runCreated } };
      const [excludedSinceLast, staleDroppedSinceLast] = await Promise.all([
        db().sample.count({ where: sinceLast }),
        db().sample.count({ where: { ...sinceLast, excludeReason: TRAINER_EXCLUDE.stale } }),
      ]);
      const decisions = [...built.decisions.values()];
      const values = stepMetrics({
        trainMetrics: trainMetrics as unknown as Record<string, number>,
        rewards: decisions.map((d) => d.reward),
        contexts: built.samples.map((x) => x.context),
        demos: built.demos.length,
        evalScores: built.evalScores,
        responseLens: built.responseLens,
        kinds: decisions.map((d) => d.kind),
        staleness: decisions.map((d) => d.staleness),
        excludedSinceLast,
        staleDroppedSinceLast,
        importanceWeighted: built.importanceWeighted,
        trainStepMs,
        tokens: trainMetrics["train/prompt_tokens"] + trainMetrics["train/response_tokens"],
        checkpointMs,
      });
      const points: Point[] = Object.entries(values).map(([name, value]) => ({ name, value, step }));
      await this.opts.beforeCommit?.({ runId: s.runId, experimentId: s.experimentId, parentVersion: active.version });
      const outcome = await commitStep({
        runId: s.runId,
        experimentId: s.experimentId,
        step,
        version,
        parentVersion: active.version,
        checkpointPath: dir,
        checkpointSha: meta.sha256,
        bytes: await dirBytes(dir),
        decisions: built.decisions,
        record: { values, trace: built.trace, parentVersion: active.version },
        durationMs: performance.now() - t0,
        points,
      });
      const summary: StepSummary = {
        step,
        version,
        parentVersion: active.version,
        outcome: outcome.status,
        checkpointPath: dir,
        metrics: values,
      };
      if (outcome.status === "discarded") {
        this.log(`run ${s.runId}: step ${step} discarded: ${outcome.reason}`);
        await fs.rm(dir, { recursive: true, force: true });
        this.dropWeights(s);
        return summary;
      }
      await publishMetrics(s.experimentId, s.runId, points);
      if (outcome.status === "ACTIVE") {
        weights.version = version;
        await publish("policyVersion", { experimentId: s.experimentId, version, checkpointPath: dir }).catch(() => {});
      } else {
        this.dropWeights(s); // not live: continue from whatever the operator made ACTIVE
      }
      this.log(
        `run ${s.runId}: step ${step} → version ${version} (${outcome.status.toLowerCase()}), loss ${values["train/loss"]?.toFixed(4)}, ${Math.round(trainStepMs)} ms`,
      );
      await pruneCheckpoints(s.experimentId, config.hyper.keepCheckpoints, this.opts.dataDir).catch((e: Error) =>
        this.log(`prune failed: ${e.message}`),
      );
      return summary;
    } catch (e) {
      // The weights in memory moved past what is committed: reload them next time. A checkpoint this
      // attempt wrote stays until pruning, which checks the database for whether it was committed.
      this.dropWeights(s);
      throw e;
    }
  }

  /** batch/fill (samples waiting) and batch/eta_s, published every few seconds, persisted on change. */
  private async reportFill(s: RunState, fill: BatchFill, step: number, force = false): Promise<void> {
    const now = Date.now();
    if (!force && now - s.fillPublishedAt < (this.opts.fillEveryMs ?? 3000)) return;
    s.fillPublishedAt = now;
    const eta = s.rate.etaSeconds(fill.ready, fill.needed);
    const points: Point[] = [{ name: "batch/fill", value: fill.ready, step }];
    if (eta !== null) points.push({ name: "batch/eta_s", value: eta, step });
    const persist =
      !s.fillPersisted || s.fillPersisted.ready !== fill.ready || now - s.fillPersisted.at >= PERSIST_FILL_EVERY_MS;
    if (persist) {
      s.fillPersisted = { ready: fill.ready, at: now };
      await recordMetrics(s.experimentId, s.runId, points);
    } else {
      await publishMetrics(s.experimentId, s.runId, points);
    }
  }
}
