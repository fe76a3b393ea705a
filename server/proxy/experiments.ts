// Which experiment a request belongs to, and what serves it. Contexts are cached and refreshed in the
// background (stale-while-revalidate), so only an experiment's very first request waits on Postgres, and
// a Postgres outage keeps the last known contexts serving. Policy versions switch on the policyVersion
// channel (and on refresh, should a message be missed); an embedded engine loads the new weights first
// and keeps answering with the old ones meanwhile — never a 503.
import type { Db } from "../platform/db/client";
import type { Principal } from "../access/principal";
import { ExperimentConfigSchema, type ExperimentConfig } from "../config/experimentConfig";
import { unsealConfig, type SealedSecrets } from "../config/secrets";
import { LIVE_RUN_STATUSES } from "../platform/db/runStatus";
import { ProxyError } from "./errors";
import { Lru } from "./lru";
import { BUILTIN_SIDE_PATTERNS, compilePatterns, ContextMatcher } from "./normalize";
import type { TextPattern } from "../platform/safePattern";
import { createUpstream, upstreamSignature, type UpstreamFactory } from "./upstreams/factory";
import type { Upstream } from "./upstreams/types";

export interface ExperimentContext {
  id: string;
  slug: string;
  runId: string | null;
  config: ExperimentConfig;
  policyVersion: number;
  checkpointPath: string | null;
  upstream: Upstream;
  contexts: ContextMatcher;
  sidePatterns: TextPattern[];
}

interface Entry {
  ctx: ExperimentContext;
  at: number;
  refreshing: Promise<void> | null;
  /** Version an embedded upstream is loading. */
  switching: number | null;
}

const FRESH_MS = 5000;
const NEGATIVE_MS = 2000;

const MAX_MISSES = 10_000;
const notFound = (what: string) => new ProxyError(404, "invalid_request_error", what, "model_not_found", "model");

export class ExperimentDirectory {
  private readonly byId = new Map<string, Entry>();
  private readonly slugs = new Map<string, string>();
  /** Slugs that named no experiment, briefly: bounded, as any client can send random `model` names. */
  private readonly missing = new Lru<string, number>(MAX_MISSES);
  private readonly upstreams = new Map<string, Upstream>();
  private models: { at: number; items: { slug: string; created: number }[] } | null = null;

  constructor(
    private readonly deps: {
      db: () => Db;
      upstreamTimeoutMs: number;
      makeUpstream?: UpstreamFactory;
      log?: (m: string) => void;
    },
  ) {}

  get(id: string): ExperimentContext | undefined {
    return this.byId.get(id)?.ctx;
  }

  async resolve(principal: Principal & { kind: "apiKey" }, model: string | undefined): Promise<ExperimentContext> {
    let id = principal.experimentId;
    if (!id) {
      if (!model) throw notFound("Set `model` to an experiment's slug (this API key is not bound to an experiment)");
      id = this.slugs.get(model) ?? null;
      if (!id) {
        const missAt = this.missing.get(model);
        if (missAt && Date.now() - missAt < NEGATIVE_MS) throw notFound(`No experiment with slug '${model}'`);
        const ctx = await this.load({ slug: model });
        if (!ctx) {
          this.missing.set(model, Date.now());
          throw notFound(`No experiment with slug '${model}'`);
        }
        return ctx;
      }
    }
    const entry = this.byId.get(id);
    if (entry) {
      if (Date.now() - entry.at > FRESH_MS && !entry.refreshing) {
        entry.refreshing = this.load({ id })
          .then(
            () => {},
            () => {},
          )
          .finally(() => {
            const e = this.byId.get(id!);
            if (e) e.refreshing = null;
          });
      }
      return entry.ctx;
    }
    const ctx = await this.load({ id });
    if (!ctx) throw notFound(`The experiment this key is bound to no longer exists`);
    return ctx;
  }

  private async load(where: { id: string } | { slug: string }): Promise<ExperimentContext | null> {
    let e;
    try {
      e = await this.deps.db().experiment.findUnique({
        where,
        include: {
          runs: { where: { status: { in: LIVE_RUN_STATUSES } }, orderBy: { number: "desc" }, take: 1 },
          policyVersions: { where: { status: "ACTIVE" }, orderBy: { version: "desc" }, take: 1 },
        },
      });
    } catch (err) {
      const cached = "id" in where ? this.byId.get(where.id) : undefined;
      if (cached) return cached.ctx;
      throw new ProxyError(
        503,
        "service_unavailable",
        `Cannot look up the experiment right now: ${(err as Error).message}`,
        "experiment_unavailable",
        null,
        2,
      );
    }
    if (!e) return null;
    if (e.status === "ARCHIVED")
      throw new ProxyError(
        403,
        "permission_error",
        `Experiment '${e.slug}' is archived`,
        "experiment_archived",
        "model",
      );
    const run = e.runs[0] ?? null;
    const config = unsealConfig(ExperimentConfigSchema.parse(run ? run.config : e.config), e.secrets as SealedSecrets);
    // An external trainer (slime) reports where its rollout engine serves the weights it trains: the
    // live run's traffic goes there rather than to the configured URL. The configured API key belongs to the
    // configured server: it goes along only to that same origin, never to an address a trainer reported.
    // Not when versions are LoRA adapters hot-loaded into the configured engine: that engine serves them, not the
    // trainer's own server.
    if (run?.rolloutUrl && config.policy.kind !== "embedded" && !config.policy.loraAdapters) {
      const sameOrigin = new URL(run.rolloutUrl).origin === new URL(config.policy.baseUrl).origin;
      config.policy = {
        ...config.policy,
        baseUrl: run.rolloutUrl,
        apiKey: sameOrigin ? config.policy.apiKey : undefined,
      };
    }
    const active = e.policyVersions[0] ?? null;
    const version = active?.version ?? 0;
    const checkpointPath = active?.checkpointPath ?? null;
    const previous = this.byId.get(e.id);
    const upstream = this.upstreamFor(e.id, e.slug, config, checkpointPath, version);
    const ctx: ExperimentContext = {
      id: e.id,
      slug: e.slug,
      runId: run?.id ?? null,
      config,
      // A version that is still loading keeps the previous one current.
      policyVersion: previous && previous.ctx.upstream === upstream ? previous.ctx.policyVersion : version,
      checkpointPath: previous && previous.ctx.upstream === upstream ? previous.ctx.checkpointPath : checkpointPath,
      upstream,
      contexts: new ContextMatcher(config.serving.contextPatterns),
      sidePatterns: compilePatterns([...BUILTIN_SIDE_PATTERNS, ...config.serving.sidePatterns]),
    };
    const entry: Entry = {
      ctx,
      at: Date.now(),
      refreshing: previous?.refreshing ?? null,
      switching: previous?.switching ?? null,
    };
    this.byId.set(e.id, entry);
    this.slugs.set(e.slug, e.id);
    if (ctx.policyVersion !== version) void this.switchTo(e.id, version, checkpointPath);
    return ctx;
  }

  private upstreamFor(
    experimentId: string,
    slug: string,
    config: ExperimentConfig,
    checkpointPath: string | null,
    version: number,
  ): Upstream {
    // An embedded policy's weights move with its own experiment's training: two experiments on the same base
    // checkpoint must not share one engine (a version swap for one would serve the other's weights).
    // So must two experiments whose versions are LoRA adapters loaded into one engine.
    const sig =
      config.policy.kind === "embedded" || config.policy.loraAdapters
        ? `${experimentId}\u0000${upstreamSignature(config.policy)}`
        : upstreamSignature(config.policy);
    let u = this.upstreams.get(sig);
    if (!u) {
      u = (this.deps.makeUpstream ?? createUpstream)({
        policy: config.policy,
        checkpointPath,
        version,
        timeoutMs: this.deps.upstreamTimeoutMs,
        defaultMaxTokens: config.serving.maxTokens,
        servedName: slug,
      });
      this.upstreams.set(sig, u);
    }
    return u;
  }

  /** The experiment's context (loaded when this proxy has not served it yet); null when it does not exist. */
  async contextOf(experimentId: string): Promise<ExperimentContext | null> {
    return this.byId.get(experimentId)?.ctx ?? (await this.load({ id: experimentId }));
  }

  /** A policyVersion message: switch once the new version is live in the upstream. */
  async switchTo(experimentId: string, version: number, checkpointPath: string | null): Promise<void> {
    const entry = this.byId.get(experimentId);
    if (!entry || entry.ctx.policyVersion === version || entry.switching === version) return;
    entry.switching = version;
    try {
      await entry.ctx.upstream.switchVersion?.(version, checkpointPath);
      const now = this.byId.get(experimentId);
      if (now && now.switching === version) {
        now.ctx = { ...now.ctx, policyVersion: version, checkpointPath: checkpointPath ?? now.ctx.checkpointPath };
        now.switching = null;
      }
    } catch (err) {
      entry.switching = null;
      this.deps.log?.(
        `policy version ${version} of ${experimentId} could not be loaded: ${(err as Error).message}; still serving ${entry.ctx.policyVersion}`,
      );
    }
  }

  async listModels(principal: Principal & { kind: "apiKey" }): Promise<{ slug: string; created: number }[]> {
    if (principal.experimentId) {
      const ctx = await this.resolve(principal, undefined);
      return [{ slug: ctx.slug, created: 0 }];
    }
    if (!this.models || Date.now() - this.models.at > FRESH_MS) {
      const rows = await this.deps.db().experiment.findMany({
        where: { status: "ACTIVE" },
        select: { slug: true, createdAt: true },
        orderBy: { createdAt: "asc" },
      });
      this.models = {
        at: Date.now(),
        items: rows.map((r) => ({ slug: r.slug, created: Math.floor(r.createdAt.getTime() / 1000) })),
      };
    }
    return this.models.items;
  }

  async close(): Promise<void> {
    await Promise.all([...this.upstreams.values()].map((u) => u.close().catch(() => {})));
    this.upstreams.clear();
  }
}
