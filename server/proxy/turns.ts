// Deciding, for one request, which session it belongs to, whether it is a main or side turn, and which
// earlier turn it gives a next state to (plan); then turning the served request into a compact,
// idempotent record event (record). Precedence for the session: header, body field, stitching; for the
// type: header, body field, "continues a conversation" (main), side-call pattern (side), the
// experiment's default.
import { randomUUID } from "node:crypto";
import type { RecordedOutput } from "./accumulate";
import { Lru } from "./lru";
import { blobOf, encodeDelta, messageDigests, splitSystem, type BlobRecord } from "../recording/compact";
import type { ExperimentContext } from "./experiments";
import { extractNextState, leadingText, normalizeAll, normalizedText, normalizeMessage } from "./normalize";
import type { TurnEvent } from "./recorder/events";
import type { ChatMessage } from "./schemas";
import { sessionKey, type Lane, type SessionState, type SessionTable } from "./sessions";
import type { SessionMeta } from "./sessionMeta";
import type { Claim, RecentSession, SessionOrder } from "./sessionOrder";
import { chainHashes, chainSeed, extendChain, type StitchIndex } from "./stitch";

export interface TurnPlan {
  session: SessionState;
  turnType: Lane;
  typeSource: "header" | "body" | "stitched" | "summary" | "pattern" | "default";
  /** How the session was decided: header, body, stitched (continuation), summary (after compaction), side-call, new. */
  sessionSource: "header" | "body" | "stitched" | "summary" | "side-call" | "new";
  /** Without shared order (no Redis): the link decided from this process's memory. */
  link: TurnEvent["link"];
  /** A main request's next state for the session's pending main turn (the shared order picks the turn). */
  nextState: { value: NonNullable<TurnEvent["link"]>["nextState"]; role: string } | null;
  /** A session this request created (its order starts at index 0 without asking Postgres). */
  fresh: boolean;
  /** Chain hashes of the normalized request (stitching only). */
  chain: string[] | null;
  done: boolean;
  /** Simulated traffic from this persona (X-Simulated-Persona, from a key allowed to set it). */
  persona: string | null;
  /** The end user and agent named by an identity key (X-User-Id / X-Agent-Id); null when none was sent. */
  endUserId: string | null;
  agentId: string | null;
}

export interface RecordInput {
  turnId: string;
  requestId: string;
  messages: ChatMessage[];
  /** The forwarded body without messages (tools included); stored as params + the tools blob. */
  rest: Record<string, unknown>;
  output: RecordedOutput | null;
  status: "OK" | "FAILED";
  error: string | null;
  ttftMs: number | null;
  latencyMs: number;
  policyVersion: number;
  upstreamModel: string | null;
  createdAt: number;
  /** The user's adapter that served this turn (per-user personalization); null or absent: the shared policy. */
  adapterId?: string | null;
}

export interface BlobShipper {
  shipBlob(hash: string): boolean;
}

const SIDE_ATTACH_MS = 30 * 60_000;
const MIN_SUMMARY_CHARS = 40;
const RECENT_TEXT_CHARS = 2000;

/** Time-ordered prefix + 122 random bits (randomUUID draws from a cached entropy pool: no syscall per id). */
export const newId = (prefix: string) => `${prefix}${Date.now().toString(36)}${randomUUID().replace(/-/g, "")}`;

export class TurnPlanner {
  /** Turn → experiment/session, for feedback that names a turn not yet written. */
  readonly recentTurns = new Lru<string, { experimentId: string; sessionKey: string }>(200_000);
  /** Session → its latest successful main turn (outlives the session's in-memory state). */
  readonly lastMain = new Lru<string, string>(100_000);

  constructor(
    private readonly deps: {
      sessions: SessionTable;
      stitch: StitchIndex;
      blobs: BlobShipper;
      /** Shared order (Redis); null: this process's memory orders its sessions. */
      order?: SessionOrder | null;
      /** Highest stored index of a session (-1 if none), for a session the shared order does not hold yet. */
      storedMaxIndex?: (experimentId: string, externalId: string) => Promise<number>;
    },
  ) {}

  async plan(
    ex: ExperimentContext,
    keyId: string | null,
    meta: SessionMeta,
    messages: ChatMessage[],
    hasTools: boolean,
  ): Promise<TurnPlan> {
    const { sessions } = this.deps;
    const isSideCall = () => !hasTools && ex.sidePatterns.some((p) => p.test(leadingText(messages)));
    let session: SessionState | undefined;
    let sessionSource: TurnPlan["sessionSource"];
    let chain: string[] | null = null;

    if (meta.sessionId) {
      const key = sessionKey(ex.id, meta.sessionId.value);
      session =
        sessions.get(key) ??
        sessions.create({
          experimentId: ex.id,
          externalId: meta.sessionId.value,
          idSource: meta.sessionId.source,
          keyId,
          cold: true,
        });
      sessionSource = meta.sessionId.source;
    } else {
      const normalized = normalizeAll(messages, ex.contexts);
      chain = chainHashes(ex.id, keyId, normalized);
      const match = await this.deps.stitch.lookup(chain);
      if (match) {
        const known = sessions.get(match.target.sessionKey);
        // A shared-store hit is the session's live registration; a memory hit is live only if it is the latest.
        if (known && (match.shared || known.stitchSeq === match.target.seq)) session = known;
        else if (!known) {
          // Known to the shared store only (restart, other replica): continue it cold.
          const externalId = match.target.sessionKey.slice(match.target.sessionKey.indexOf("\u0000") + 1);
          session = sessions.create({ experimentId: ex.id, externalId, idSource: "stitched", keyId, cold: true });
        }
        // else: it continues an older turn of a live session (a retry or an edit) — a new branch, new session.
      }
      sessionSource = "stitched";
      // A compaction call and the request resumed after it continue no stitch chain: they are attributed to
      // a recent session of the key — any replica's (Redis), or this process's while Redis does not answer.
      const recent = !session && keyId ? await this.recentSessions(keyId, ex.id) : [];
      if (!session && keyId) {
        session = this.afterCompaction(ex.id, keyId, normalized, recent);
        if (session) sessionSource = "summary";
      }
      if (!session && keyId && isSideCall()) {
        session = this.sideCallOwner(ex.id, keyId, messages, ex, recent);
        if (session) sessionSource = "side-call";
      }
      if (!session) {
        session = sessions.create({
          experimentId: ex.id,
          externalId: newId("st_"),
          idSource: "stitched",
          keyId,
          cold: false,
        });
        sessionSource = "new";
      }
    }

    const continued = sessionSource === "stitched" || sessionSource === "summary";
    let turnType: Lane;
    let typeSource: TurnPlan["typeSource"];
    if (meta.turnType) {
      turnType = meta.turnType.main ? "MAIN" : "SIDE";
      typeSource = meta.turnType.source;
    } else if (continued) {
      turnType = "MAIN";
      typeSource = sessionSource === "summary" ? "summary" : "stitched";
    } else if (isSideCall()) {
      turnType = "SIDE";
      typeSource = "pattern";
    } else {
      turnType = ex.config.serving.defaultTurnType === "main" ? "MAIN" : "SIDE";
      typeSource = "default";
    }

    let link: TurnEvent["link"] = null;
    let nextState: TurnPlan["nextState"] = null;
    if (turnType === "MAIN") {
      const next = extractNextState(messages, ex.contexts);
      if (next) nextState = { value: next, role: next.role };
      if (next && (session.pendingMain || session.cold)) {
        link = { target: session.pendingMain ?? "lookup", nextState: next, role: next.role, at: Date.now() };
        session.pendingMain = null;
      }
    }
    session.cold = false;
    sessions.touch(session);
    return {
      session,
      turnType,
      typeSource,
      sessionSource,
      link,
      nextState,
      fresh: sessionSource === "new",
      chain,
      done: meta.done,
      persona: meta.persona,
      endUserId: meta.endUserId,
      agentId: meta.agentId,
    };
  }

  /** The key's recent sessions: shared across replicas (Redis), else this process's. */
  private async recentSessions(keyId: string, experimentId: string): Promise<RecentSession[]> {
    const shared = this.deps.order ? await this.deps.order.recentForKey(keyId, experimentId, SIDE_ATTACH_MS) : null;
    return (
      shared ??
      this.deps.sessions
        .recentForKey(keyId, experimentId, SIDE_ATTACH_MS)
        .map((s) => ({ externalId: s.externalId, lastUserText: s.lastUserText, summaries: s.summaries }))
    );
  }

  /** This process's state of a session another replica may have served (then it continues cold). */
  private local(experimentId: string, keyId: string, r: RecentSession | undefined): SessionState | undefined {
    if (!r) return undefined;
    const known = this.deps.sessions.get(sessionKey(experimentId, r.externalId));
    return (
      known ??
      this.deps.sessions.create({ experimentId, externalId: r.externalId, idSource: "stitched", keyId, cold: true })
    );
  }

  /** The conversation a post-compaction request resumes: one whose side call produced a summary it quotes. */
  private afterCompaction(
    experimentId: string,
    keyId: string,
    normalized: string[],
    recent: RecentSession[],
  ): SessionState | undefined {
    const candidates = recent.filter((s) => s.summaries.length);
    if (!candidates.length) return undefined;
    const texts = normalized.slice(0, 5).map(normalizedText);
    return this.local(
      experimentId,
      keyId,
      candidates.find((s) => s.summaries.some((sum) => texts.some((t) => t.includes(sum)))),
    );
  }

  /** The conversation a side call (e.g. a compaction) is about: a recent session whose last user message it quotes. */
  private sideCallOwner(
    experimentId: string,
    keyId: string,
    messages: ChatMessage[],
    ex: ExperimentContext,
    recent: RecentSession[],
  ): SessionState | undefined {
    const text = normalizeAll(messages, ex.contexts).map(normalizedText).join("\n");
    return this.local(
      experimentId,
      keyId,
      recent.find((s) => s.lastUserText !== null && s.lastUserText.length >= 8 && text.includes(s.lastUserText)),
    );
  }

  /**
   * The turn as a record event. With shared order the turn's index, its lane's predecessor and its link come
   * from Redis (one script call, before the response completes); otherwise from this process's memory.
   */
  async record(ex: ExperimentContext, plan: TurnPlan, r: RecordInput): Promise<TurnEvent> {
    const { session, turnType } = plan;
    const { system, body } = splitSystem(r.messages);
    const digests = messageDigests(body);
    const ok = r.status === "OK";
    const out = r.output;
    const stitchHash =
      turnType === "MAIN" && ok && plan.chain && !plan.done ? this.continuationHash(ex, plan, out) : null;
    let lastUserText: string | null = null;
    let summaries: string[] | null = null;
    if (turnType === "MAIN") {
      const lastUser = [...r.messages].reverse().find((m) => m.role === "user" && !ex.contexts.isContextMessage(m));
      const n = lastUser ? normalizeMessage(lastUser, ex.contexts) : null;
      if (n) lastUserText = normalizedText(n);
    } else if (ok && plan.sessionSource === "side-call" && out?.content) {
      const text = out.content.trim();
      if (text.length >= MIN_SUMMARY_CHARS) summaries = [text, ...session.summaries].slice(0, 3);
    }
    const claim = await this.claim(ex, plan, r, digests, stitchHash, { lastUserText, summaries });

    let prev: readonly string[] | null;
    let link: TurnEvent["link"];
    let finalTurnId: string | null = null;
    if (claim?.kind === "ok") {
      prev =
        claim.lane === "none" ? null : claim.lane === "same" ? (session.lanes[turnType] ?? null) : claim.baseDigests;
      link =
        plan.nextState && claim.target
          ? { target: claim.target, nextState: plan.nextState.value, role: plan.nextState.role, at: Date.now() }
          : null;
      if (plan.done) finalTurnId = claim.final;
    } else {
      prev = session.lanes[turnType] ?? null;
      link = plan.link;
      if (plan.done) finalTurnId = turnType === "MAIN" && ok ? r.turnId : session.pendingMain;
    }
    const { messagesOffset, messagesDelta } = encodeDelta(prev, digests, body);
    session.lanes[turnType] = digests;
    session.laneTurns[turnType] = r.turnId;
    session.turns++;

    const blobs: BlobRecord[] = [];
    const sys = system ? blobOf("system", system) : null;
    const { tools, ...params } = r.rest;
    const toolsBlob = Array.isArray(tools) && tools.length ? blobOf("tools", tools) : null;
    if (!toolsBlob && tools !== undefined) params.tools = tools; // [] or null round-trip through params
    for (const b of [sys, toolsBlob]) if (b && this.deps.blobs.shipBlob(b.hash)) blobs.push(b);

    if (lastUserText !== null) session.lastUserText = lastUserText;
    if (summaries) session.summaries = summaries;
    if (turnType === "MAIN") {
      if (ok) {
        session.pendingMain = r.turnId;
        this.lastMain.set(session.key, r.turnId);
        if (stitchHash) {
          session.stitchSeq = claim?.kind === "ok" ? claim.index + 1 : session.stitchSeq + 1;
          const target = { sessionKey: session.key, seq: session.stitchSeq };
          if (claim?.kind === "ok") this.deps.stitch.registerLocal(stitchHash, target);
          else this.deps.stitch.register(stitchHash, target);
        }
      }
    }

    this.recentTurns.set(r.turnId, { experimentId: ex.id, sessionKey: session.key });
    if (plan.done) {
      session.pendingMain = null;
      this.deps.sessions.delete(session.key);
      this.deps.stitch.forgetSession(session.key);
    }

    return {
      t: "turn",
      id: r.turnId,
      requestId: r.requestId,
      experimentId: ex.id,
      runId: ex.runId,
      session: { externalId: session.externalId, idSource: session.idSource },
      index: claim?.kind === "ok" ? claim.index : null,
      turnType,
      typeSource: plan.typeSource,
      status: r.status,
      systemHash: sys?.hash ?? null,
      toolsHash: toolsBlob?.hash ?? null,
      blobs,
      messagesOffset,
      messagesDelta,
      params,
      content: out?.content ?? null,
      toolCalls: out?.toolCalls ?? null,
      reasoning: out?.reasoning ?? null,
      finishReason: out?.finishReason ?? null,
      tokenIds: out?.tokenIds ?? [],
      logprobs: out?.logprobs ?? [],
      promptTokens: out?.promptTokens ?? null,
      completionTokens: out?.completionTokens ?? null,
      ttftMs: r.ttftMs,
      latencyMs: r.latencyMs,
      policyVersion: r.policyVersion,
      upstreamModel: r.upstreamModel,
      error: r.error,
      createdAt: r.createdAt,
      link,
      done: plan.done,
      finalTurnId,
      simulated: plan.persona !== null,
      persona: plan.persona,
      endUserId: plan.endUserId,
      agentId: plan.agentId,
      adapterId: r.adapterId ?? null,
    };
  }

  /** The shared order's answer for this turn, or null (no Redis, or it failed: memory decides). */
  private async claim(
    ex: ExperimentContext,
    plan: TurnPlan,
    r: RecordInput,
    digests: string[],
    stitchHash: string | null,
    seen: { lastUserText: string | null; summaries: string[] | null },
  ): Promise<Claim | null> {
    const order = this.deps.order;
    if (!order) return null;
    const { session, turnType } = plan;
    const store = this.deps.stitch.store;
    const input = {
      experimentId: ex.id,
      externalId: session.externalId,
      lane: turnType,
      turnId: r.turnId,
      localLaneTurn: session.laneTurns[turnType] ?? null,
      digests,
      main: turnType === "MAIN",
      ok: r.status === "OK",
      wantsLink: plan.nextState !== null,
      done: plan.done,
      stitch:
        stitchHash && store
          ? { key: store.keyOf(stitchHash), payload: JSON.stringify({ sessionKey: session.key, seq: 0 }) }
          : null,
      initIndex: plan.fresh ? -1 : null,
      // A prefix is enough to recognise a side call quoting the text (and keeps a long message out of Redis).
      recent: session.keyId
        ? {
            keyId: session.keyId,
            lastUserText: seen.lastUserText?.slice(0, RECENT_TEXT_CHARS) ?? null,
            summaries: seen.summaries,
            windowMs: SIDE_ATTACH_MS,
          }
        : null,
    };
    try {
      const first = await order.claim(input);
      if (first.kind === "ok" || !this.deps.storedMaxIndex) return first;
      // Not in Redis (first sight of a header session, or expired): continue after what Postgres holds, and
      // let the writer find the turn this next state belongs to there ("lookup"), as for a cold session.
      const max = await this.deps.storedMaxIndex(ex.id, session.externalId);
      const claim = await order.claim({ ...input, initIndex: max });
      return claim.kind === "ok" ? { ...claim, target: claim.target ?? (max >= 0 ? "lookup" : null) } : null;
    } catch {
      return null;
    }
  }

  /** The stitch hash a continuation of this turn will start with: its normalized request + its reply. */
  private continuationHash(ex: ExperimentContext, plan: TurnPlan, out: RecordedOutput | null): string {
    const chain = plan.chain!;
    const base = chain.length ? chain[chain.length - 1]! : chainSeed(ex.id, plan.session.keyId);
    const reply = normalizeMessage(
      {
        role: "assistant",
        content: out?.content ?? null,
        tool_calls: (out?.toolCalls ?? null) as ChatMessage["tool_calls"],
      },
      ex.contexts,
    );
    return reply ? extendChain(base, reply) : base;
  }

  /** The writer refused a turn: the next turn of that lane stores its whole body. */
  resetLane(e: TurnEvent): void {
    const s = this.deps.sessions.get(sessionKey(e.experimentId, e.session.externalId));
    if (s) {
      delete s.lanes[e.turnType];
      delete s.laneTurns[e.turnType];
    }
    this.deps.order?.forgetLane(e.experimentId, e.session.externalId, e.turnType);
  }
}
