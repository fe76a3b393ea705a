// POST /v1/feedback: the user's explicit +1/-1 (and comment) on a turn — named by turn_id, or the latest
// main turn of session_id — stored as a label with source USER through the writer (so it survives a
// Postgres outage like turns do). Finding the turn may read Postgres when it is not in memory.
import type { IncomingMessage, ServerResponse } from "node:http";
import { badRequest, fromZodError, ProxyError, recordingUnavailable } from "../errors";
import { header, readBody, sendJson } from "../http";
import { FeedbackSchema } from "../schemas";
import { sessionKey } from "../sessions";
import { newId } from "../turns";
import { recordingProblem, type ProxyDeps } from "./deps";

const notFound = (what: string) => new ProxyError(404, "not_found_error", what, "not_found");
const unavailable = (err: unknown) =>
  new ProxyError(
    503,
    "service_unavailable",
    `Cannot look up the turn right now: ${(err as Error).message}`,
    "db_unavailable",
    null,
    2,
  );

export async function handleFeedback(req: IncomingMessage, res: ServerResponse, deps: ProxyDeps): Promise<void> {
  const principal = await deps.auth.authenticate(req);
  // Feedback shares the key's request budget: it writes labels and may read Postgres, so it can be flooded too.
  const limitHeaders = await deps.rateLimit(principal.keyId);
  const unrecordable = recordingProblem(deps);
  if (unrecordable) throw recordingUnavailable(unrecordable);
  res.once("close", deps.inflight.acquire(principal.keyId));
  const raw = await readBody(req, 64 * 1024, deps.bodyIdleMs);
  let json: unknown;
  try {
    json = JSON.parse(raw.toString("utf8"));
  } catch (err) {
    throw badRequest(`Malformed JSON body: ${(err as Error).message}`, null, "invalid_json");
  }
  const parsed = FeedbackSchema.safeParse(json);
  if (!parsed.success) throw fromZodError(parsed.error, "Invalid feedback");
  const fb = parsed.data;
  const sessionId = fb.session_id ?? header(req, "x-session-id")?.trim();
  if (!fb.turn_id && !sessionId)
    throw badRequest("Give turn_id, or session_id (or the X-Session-Id header)", "turn_id");

  let turnId: string | null = null;
  if (fb.turn_id) {
    // This replica's memory, then Redis (any replica's turns, before their writer committed them), then Postgres.
    let experimentId =
      deps.planner.recentTurns.get(fb.turn_id)?.experimentId ??
      (await deps.order?.experimentOfTurn(fb.turn_id)) ??
      undefined;
    if (!experimentId) {
      const row = await deps
        .db()
        .turn.findUnique({ where: { id: fb.turn_id }, select: { experimentId: true } })
        .catch((err) => {
          throw unavailable(err);
        });
      experimentId = row?.experimentId;
    }
    // A bound key never learns whether another experiment's turn exists.
    if (!experimentId || (principal.experimentId && principal.experimentId !== experimentId))
      throw notFound(`No turn '${fb.turn_id}'`);
    turnId = fb.turn_id;
  } else {
    const ex = await deps.experiments.resolve(principal, fb.model);
    turnId =
      (await deps.order?.latestMain(ex.id, sessionId!)) ??
      deps.planner.lastMain.get(sessionKey(ex.id, sessionId!)) ??
      null;
    if (!turnId) {
      const t = await deps
        .db()
        .turn.findFirst({
          where: { session: { experimentId: ex.id, externalId: sessionId! }, turnType: "MAIN", status: "OK" },
          orderBy: { index: "desc" },
          select: { id: true },
        })
        .catch((err) => {
          throw unavailable(err);
        });
      turnId = t?.id ?? null;
    }
    if (!turnId) throw notFound(`Session '${sessionId}' has no answered main turn`);
  }

  const id = newId("fb_");
  deps.writer.push({
    t: "label",
    id,
    turnId,
    value: fb.value,
    comment: fb.comment ?? null,
    apiKeyId: principal.keyId,
    createdAt: Date.now(),
  });
  sendJson(
    res,
    200,
    { id, object: "feedback", turn_id: turnId, session_id: sessionId ?? null, value: fb.value },
    limitHeaders,
  );
}
