// POST /v1/chat/completions: authenticate, validate, decide session and turn type, forward to the
// experiment's upstream (real SSE pass-through when streaming), record, then send the last bytes. Recording
// is one call to the shared session order (Redis: the turn's index, delta base and link), then one synchronous
// journal append plus an in-memory push (the writer batches the Postgres write), done before the response
// completes so that a client never holds a 2xx for a turn a crash could lose, and so that its next request
// sees this turn whichever replica it reaches.
import type { IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import { fromCompletion, StreamAccumulator, type RecordedOutput } from "../accumulate";
import { can } from "../../access/principal";
import { EVERYONE } from "../../config/experimentConfig";
import {
  badRequest,
  fromZodError,
  ProxyError,
  UPSTREAM_RETRY_AFTER_S,
  upstreamTimeout,
  upstreamUnavailable,
  recordingUnavailable,
} from "../errors";
import type { ExperimentContext } from "../experiments";
import { readBody, sendError, sendJson } from "../http";
import { ChatRequestSchema, type ChatRequest } from "../schemas";
import { extractSessionMeta, IDENTITY_ID, type SessionMeta } from "../sessionMeta";
import { newId, type TurnPlan } from "../turns";
import { UpstreamTimeoutError, UpstreamUnavailableError, type StreamChunk } from "../upstreams/types";
import { recordingProblem, type ProxyDeps } from "./deps";
import { adapterOwner } from "../userAdapterEvents";

interface ClientWants {
  logprobs: boolean;
  usage: boolean;
  tokenIds: boolean;
}

type Obj = Record<string, unknown>;

/** The experiment's serving settings applied to what is forwarded (and recorded as the turn's params). */
function applyServing(body: ChatRequest, ex: ExperimentContext): Obj {
  const out: Obj = { ...body };
  const serving = ex.config.serving;
  if (out.max_tokens == null && out.max_completion_tokens == null) out.max_tokens = serving.maxTokens;
  if (serving.temperature !== undefined) out.temperature = serving.temperature;
  return out;
}

/** Strips what the proxy asked for on its own behalf (log-probs, token ids, usage) unless the client asked too. */
function clientChoices(choices: unknown, wants: ClientWants): { choices: unknown; changed: boolean } {
  if (!Array.isArray(choices)) return { choices, changed: false };
  let changed = false;
  const out = choices.map((c: Obj) => {
    if (!c || typeof c !== "object") return c;
    const strip =
      (!wants.logprobs && c.logprobs != null) || (!wants.tokenIds && ("token_ids" in c || "prompt_token_ids" in c));
    if (!strip) return c;
    changed = true;
    const copy: Obj = { ...c };
    if (!wants.logprobs) copy.logprobs = null;
    if (!wants.tokenIds) {
      delete copy.token_ids;
      delete copy.prompt_token_ids;
    }
    return copy;
  });
  return { choices: out, changed };
}

function clientChunk(chunk: StreamChunk, wants: ClientWants): string | null {
  const j = chunk.json;
  const usageOnly = Array.isArray(j.choices) && j.choices.length === 0 && j.usage != null;
  if (usageOnly && !wants.usage) return null;
  const { choices, changed } = clientChoices(j.choices, wants);
  const dropUsage = !wants.usage && j.usage != null;
  if (!changed && !dropUsage) return chunk.raw;
  const copy: Obj = { ...j, choices };
  if (dropUsage) delete copy.usage;
  return JSON.stringify(copy);
}

function upstreamErrorMessage(body: unknown): string {
  if (body && typeof body === "object") {
    const e = (body as Obj).error;
    if (e && typeof e === "object" && typeof (e as Obj).message === "string") return (e as Obj).message as string;
    if (typeof e === "string") return e;
    if (typeof (body as Obj).message === "string") return (body as Obj).message as string;
  }
  return typeof body === "string" ? body.slice(0, 500) : "upstream error";
}

function toProxyError(err: unknown): ProxyError {
  if (err instanceof ProxyError) return err;
  if (err instanceof UpstreamTimeoutError) return upstreamTimeout(err.ms);
  if (err instanceof UpstreamUnavailableError) return upstreamUnavailable(err.message);
  return upstreamUnavailable((err as Error)?.message ?? String(err));
}

/**
 * X-User-Id / X-Agent-Id decide whose adapter serves and trains on a turn, so a key that may not assert identity
 * is refused outright (silently dropping the header would record the turn under no user, and a client would
 * never learn its users are not being personalised). A key bound to an end user may name only that user: another
 * is refused, not overridden, or the client would believe it served someone else.
 */
function assertIdentity(meta: SessionMeta, allowed: boolean, boundEndUser: string | null): void {
  for (const [name, value] of [
    ["X-User-Id", meta.endUserId],
    ["X-Agent-Id", meta.agentId],
  ] as const) {
    if (value === null) continue;
    if (name === "X-User-Id" && boundEndUser !== null) {
      if (value === boundEndUser) continue;
      throw new ProxyError(
        403,
        "permission_error",
        "This key serves one end user: X-User-Id cannot name another",
        "insufficient_scope",
        "x-user-id",
      );
    }
    if (!allowed)
      throw new ProxyError(
        403,
        "permission_error",
        `${name} needs a key with the 'identity' scope`,
        "insufficient_scope",
        name.toLowerCase(),
      );
    if (!IDENTITY_ID.test(value))
      throw badRequest(`${name} must be 1–128 characters of letters, digits and . _ @ : + -`, name.toLowerCase());
  }
}

export async function handleChat(req: IncomingMessage, res: ServerResponse, deps: ProxyDeps): Promise<void> {
  const t0 = performance.now();
  const createdAt = Date.now();
  const principal = await deps.auth.authenticate(req);
  const limitHeaders = await deps.rateLimit(principal.keyId);
  const unrecordable = recordingProblem(deps);
  if (unrecordable) throw recordingUnavailable(unrecordable);
  // Held until the response is finished or the client is gone.
  res.once("close", deps.inflight.acquire(principal.keyId));
  const raw = await readBody(req, deps.maxBodyBytes, deps.bodyIdleMs);
  let json: unknown;
  try {
    json = JSON.parse(raw.toString("utf8"));
  } catch (err) {
    throw badRequest(`Malformed JSON body: ${(err as Error).message}`, null, "invalid_json");
  }
  const parsed = ChatRequestSchema.safeParse(json);
  if (!parsed.success) throw fromZodError(parsed.error, "Invalid chat completion request");
  if (parsed.data.messages.length > deps.maxMessages)
    throw badRequest(
      `messages holds ${parsed.data.messages.length} messages; at most ${deps.maxMessages} are accepted`,
      "messages",
    );
  // Validated, then used as the client sent it: zod's output lists known keys first, and the recorded
  // request must keep the client's key order to reassemble byte for byte (the schema has no transforms).
  const { meta, forward } = extractSessionMeta(req, json as ChatRequest);
  // Only a key that may change experiments can mark traffic as simulated: a plain proxy key cannot hide
  // real users' turns behind the simulated flag.
  if (meta.persona && !can(principal, "write")) meta.persona = null;
  assertIdentity(meta, can(principal, "identity"), principal.endUserId ?? null);
  // A key bound to an end user speaks for that user, with or without the header.
  meta.endUserId = principal.endUserId ?? meta.endUserId;
  const ex = await deps.experiments.resolve(principal, forward.model);
  const hasTools = Array.isArray(forward.tools) && forward.tools.length > 0;
  const plan = await deps.planner.plan(ex, principal.keyId, meta, forward.messages, hasTools);

  // Every request is a turn of its own (a client's retry is a new turn); the id doubles as the requestId
  // that makes the writer's retries and replays idempotent.
  const turnId = newId("turn_");
  const requestId = turnId;
  const stream = forward.stream === true;
  const wants: ClientWants = {
    logprobs: forward.logprobs === true,
    usage: forward.stream_options?.include_usage === true,
    tokenIds: (forward as Obj).return_token_ids === true,
  };
  const upstreamBody = applyServing(forward, ex);
  const upstream = ex.upstream;
  // Per-user mode: the user's promoted adapter answers; a user without one is served the shared adapter for new
  // users when the experiment trains one (perUser.newUsers), else the experiment's policy.
  const adapter =
    ex.config.personalization === "per-user" && meta.endUserId
      ? ((await deps.adapters.promoted(ex.id, meta.endUserId)) ??
        (ex.config.perUser.newUsers === "shared" ? await deps.adapters.promoted(ex.id, EVERYONE) : null))
      : null;
  const version = ex.policyVersion;
  const aborted = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) aborted.abort();
  });
  const headers: Record<string, string> = {
    ...limitHeaders,
    "x-session-id": plan.session.externalId,
    "x-turn-id": turnId,
    "x-turn-type": plan.turnType.toLowerCase(),
    "x-policy-version": String(version),
  };
  // The adapter version that served, once known (an engine may fall back to the base: x-adapter-fallback says why).
  let servedAdapterId: string | null = null;

  const finish = async (
    status: "OK" | "FAILED",
    output: RecordedOutput | null,
    error: string | null,
    ttftMs: number | null,
    policyVersion: number,
  ) => {
    const latencyMs = Math.round(performance.now() - t0);
    const { messages, ...rest } = upstreamBody;
    await recordTurn(deps, ex, plan, {
      turnId,
      requestId,
      messages: messages as ChatRequest["messages"],
      rest,
      output,
      status,
      error,
      ttftMs,
      latencyMs,
      policyVersion,
      upstreamModel: output?.model ?? upstream.model,
      createdAt,
      adapterId: servedAdapterId,
    });
    deps.metrics.observe(ex.id, {
      latencyMs,
      ttftMs,
      completionTokens: output?.completionTokens ?? 0,
      error: status === "FAILED",
    });
  };

  let resp;
  try {
    resp = await upstream.send({
      body: upstreamBody,
      stream,
      signal: aborted.signal,
      ...(adapter
        ? adapter.path
          ? { engineAdapter: { id: adapter.id, path: adapter.path, owner: adapterOwner(ex.id, meta.endUserId!) } }
          : { adapter: { key: adapter.key, weights: adapter.weights } }
        : {}),
    });
  } catch (err) {
    const pe = toProxyError(err);
    await finish("FAILED", null, pe.message, null, version);
    sendError(res, pe, headers);
    return;
  }

  if (resp.kind === "error") {
    const message = upstreamErrorMessage(resp.body);
    await finish("FAILED", null, `upstream ${resp.status}: ${message}`, null, version);
    if (resp.status >= 500) {
      sendError(
        res,
        new ProxyError(
          502,
          "upstream_error",
          `The policy backend failed (${resp.status}): ${message}`,
          "upstream_error",
          null,
          UPSTREAM_RETRY_AFTER_S,
        ),
        headers,
      );
    } else {
      const e =
        resp.body &&
        typeof resp.body === "object" &&
        (resp.body as Obj).error &&
        typeof (resp.body as Obj).error === "object"
          ? ((resp.body as Obj).error as Obj)
          : null;
      const pe = new ProxyError(
        resp.status,
        (e?.type as ProxyError["type"]) ?? "invalid_request_error",
        message,
        (e?.code as string) ?? null,
        (e?.param as string) ?? null,
        resp.status === 429 ? Number(resp.retryAfter) || UPSTREAM_RETRY_AFTER_S : null,
      );
      sendError(res, pe, headers);
    }
    return;
  }

  const servedBy = resp.policyVersion ?? version;
  headers["x-policy-version"] = String(servedBy);
  if (adapter) {
    // Weights are served by the embedded engine; a PEFT folder by an engine that says whether it served it.
    const served = adapter.path ? resp.adapter?.served === true : upstream.kind === "embedded";
    if (served) {
      servedAdapterId = adapter.id;
      headers["x-adapter-id"] = adapter.id;
      headers["x-adapter-version"] = String(adapter.version);
    } else
      headers["x-adapter-fallback"] = resp.adapter?.served === false ? resp.adapter.fallback : "adapter_unservable";
  }

  if (resp.kind === "json") {
    const output = fromCompletion(resp.body);
    const { choices, changed } = clientChoices(resp.body.choices, wants);
    const body: Obj = { ...resp.body, ...(changed ? { choices } : {}), session_id: plan.session.externalId };
    await finish("OK", output, null, null, servedBy);
    sendJson(res, 200, body, headers);
    return;
  }

  const acc = new StreamAccumulator();
  let ttftMs: number | null = null;
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
      ...headers,
    });
  };
  let failure: unknown = null;
  try {
    for await (const chunk of resp.chunks) {
      if (acc.push(chunk.json) && ttftMs === null) ttftMs = Math.round(performance.now() - t0);
      const text = clientChunk(chunk, wants);
      if (text === null) continue;
      start();
      res.write(`data: ${text}\n\n`);
    }
    if (aborted.signal.aborted) throw new UpstreamUnavailableError("client disconnected");
  } catch (err) {
    failure = err;
  }
  if (failure === null) {
    start();
    await finish("OK", acc.result(), null, ttftMs, servedBy);
    res.end("data: [DONE]\n\n");
    return;
  }
  const pe = aborted.signal.aborted
    ? new ProxyError(499, "api_error", "client disconnected before the answer completed", "client_closed")
    : toProxyError(failure);
  await finish("FAILED", acc.result(), pe.message, ttftMs, servedBy);
  if (!started) sendError(res, pe, headers);
  else res.end(`data: ${JSON.stringify(pe.body())}\n\n`);
}

async function recordTurn(
  deps: ProxyDeps,
  ex: ExperimentContext,
  plan: TurnPlan,
  input: Parameters<ProxyDeps["planner"]["record"]>[2],
): Promise<void> {
  try {
    deps.writer.push(await deps.planner.record(ex, plan, input));
  } catch (err) {
    // Never let recording break serving; this is a bug worth seeing in the logs.
    console.error(`[proxy] could not record turn ${input.turnId}:`, err);
  }
}
