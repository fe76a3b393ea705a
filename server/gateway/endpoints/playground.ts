// The playground talks to an experiment's agent through the real recording proxy (so its turns are recorded,
// judged and trained on like any client's), using the proxy's OpenAI-compatible contract. The browser
// never holds a proxy key: the web server relays with a short-lived key bound to the experiment, minted
// per (user, experiment) and cached until shortly before it expires.
import { z } from "zod";
import { resolveContext, assertSameOrigin } from "../context";
import { createApiKey } from "../../apiKeys/service";
import { assertCan, assertExperimentAccess, type Principal } from "../../access/principal";
import { db } from "../../platform/db/client";
import { env, settings } from "../../platform/env";
import { AppError, fromZod, notFound, unauthorized } from "../../platform/errors";
import { errorResponse } from "../httpErrors";
import { BODY_LIMITS, readCappedJson } from "../body";

const KEY_TTL_MS = 60 * 60_000;
const KEY_MARGIN_MS = 5 * 60_000;
const keys = new Map<string, { key: string; expiresAt: number }>();

/** Where the proxy listens: PROXY_URL, else this host's PROXY_PORT. */
export function proxyBaseUrl(): string {
  return (settings("web").PROXY_URL ?? `http://127.0.0.1:${env().PROXY_PORT}`).replace(/\/+$/, "");
}

async function proxyKey(p: Principal, experimentId: string): Promise<string> {
  const owner = p.kind === "user" ? p.userId : `key:${p.keyId}`;
  const cacheKey = `${owner}|${experimentId}`;
  const cached = keys.get(cacheKey);
  if (cached && cached.expiresAt - KEY_MARGIN_MS > Date.now()) return cached.key;
  const expiresAt = Date.now() + KEY_TTL_MS;
  const who = p.kind === "user" ? p.email : p.prefix;
  // Minted on the caller's behalf (they passed the "review" check); audited like any key creation.
  const created = await createApiKey(null, {
    name: `playground · ${who}`,
    scopes: ["proxy"],
    experimentId,
    expiresAt: new Date(expiresAt),
  });
  keys.set(cacheKey, { key: created.key, expiresAt });
  return created.key;
}

const MessageSchema = z.object({
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.string().max(100_000),
});

export const PlaygroundChatInput = z.object({
  experimentId: z.string().min(1).max(64),
  /** The conversation's session id (sent as X-Session-Id), chosen by the page. */
  sessionId: z.string().min(1).max(200),
  messages: z.array(MessageSchema).min(1).max(200),
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: z.number().int().min(1).max(8192).optional(),
});

export const PlaygroundFeedbackInput = z.object({
  experimentId: z.string().min(1).max(64),
  turnId: z.string().min(1).max(64),
  value: z.union([z.literal(1), z.literal(-1)]),
  comment: z.string().max(2000).optional(),
});

async function caller(req: Request): Promise<Principal> {
  const ctx = await resolveContext(req);
  if (!ctx.principal) throw unauthorized("Sign in to use the playground");
  assertSameOrigin(ctx);
  // Playground turns become training data: the same permission as relabelling.
  assertCan(ctx.principal, "review");
  return ctx.principal;
}

async function body<T extends z.ZodType>(req: Request, schema: T): Promise<z.output<T>> {
  const json = await readCappedJson(req, BODY_LIMITS.playground, "Playground");
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw fromZod(parsed.error, "Invalid playground request");
  return parsed.data;
}

async function experimentSlug(p: Principal, id: string): Promise<string> {
  assertExperimentAccess(p, id);
  const e = await db().experiment.findUnique({ where: { id }, select: { slug: true } });
  if (!e) throw notFound("Experiment", id);
  return e.slug;
}

function proxyUnreachable(err: unknown): AppError {
  return new AppError(
    "INTERNAL",
    `The recording proxy at ${proxyBaseUrl()} is unreachable (${(err as Error).message}): is the serve worker running?`,
  );
}

/** POST /api/playground/chat → the proxy's streaming chat completion, relayed as it arrives. */
export async function playgroundChat(req: Request): Promise<Response> {
  try {
    const p = await caller(req);
    const input = await body(req, PlaygroundChatInput);
    const slug = await experimentSlug(p, input.experimentId);
    const key = await proxyKey(p, input.experimentId);
    const upstream = await fetch(`${proxyBaseUrl()}/v1/chat/completions`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        "x-session-id": input.sessionId,
        "x-turn-type": "main",
      },
      body: JSON.stringify({
        model: slug,
        messages: input.messages,
        stream: true,
        ...(input.temperature !== undefined ? { temperature: input.temperature } : {}),
        ...(input.maxTokens !== undefined ? { max_tokens: input.maxTokens } : {}),
      }),
      signal: req.signal,
    }).catch((err: unknown) => {
      throw proxyUnreachable(err);
    });
    const headers = new Headers({
      "content-type": upstream.headers.get("content-type") ?? "application/json",
      "cache-control": "no-cache, no-transform",
    });
    for (const h of ["x-turn-id", "x-session-id", "retry-after"]) {
      const v = upstream.headers.get(h);
      if (v) headers.set(h, v);
    }
    return new Response(upstream.body, { status: upstream.status, headers });
  } catch (err) {
    return errorResponse(err);
  }
}

/** POST /api/playground/feedback → the proxy's /v1/feedback on the given turn (stored as the user's label). */
export async function playgroundFeedback(req: Request): Promise<Response> {
  try {
    const p = await caller(req);
    const input = await body(req, PlaygroundFeedbackInput);
    await experimentSlug(p, input.experimentId);
    const key = await proxyKey(p, input.experimentId);
    const upstream = await fetch(`${proxyBaseUrl()}/v1/feedback`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        turn_id: input.turnId,
        value: input.value,
        ...(input.comment ? { comment: input.comment } : {}),
      }),
    }).catch((err: unknown) => {
      throw proxyUnreachable(err);
    });
    return new Response(await upstream.text(), {
      status: upstream.status,
      headers: { "content-type": upstream.headers.get("content-type") ?? "application/json" },
    });
  } catch (err) {
    return errorResponse(err);
  }
}
