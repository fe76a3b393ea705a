// Session metadata exactly as OpenClaw-RL reads it: headers first, body fields as fallbacks, and the body
// fields are always removed before the request is forwarded (OpenClaw-RL `openclaw-rl/openclaw_api_server.py` session metadata).
import type { IncomingMessage } from "node:http";
import type { ChatRequest } from "./schemas";
import { header } from "./http";

export type MetaSource = "header" | "body";

export interface SessionMeta {
  sessionId: { value: string; source: MetaSource } | null;
  turnType: { main: boolean; source: MetaSource } | null;
  done: boolean;
  /** `X-Simulated-Persona` (our simulated users, workers/simulate): the turn is simulated traffic from this persona. */
  persona: string | null;
  /** `X-User-Id`: the end user this request serves (per-user adapters); honoured only from an identity key. */
  endUserId: string | null;
  /** `X-Agent-Id`: which of the user's agents (MetaClaw's agent id); same rule. */
  agentId: string | null;
}

const PERSONA = /^[\w.-]{1,64}$/;
/** End-user and agent ids: what an identity provider's subject or an e-mail looks like, nothing that needs escaping. */
export const IDENTITY_ID = /^[\w.@:+-]{1,128}$/;

const TRUTHY = new Set(["1", "true", "yes", "on"]);

function truthy(v: unknown): boolean {
  if (typeof v === "boolean") return v;
  if (typeof v === "number") return v === 1;
  return typeof v === "string" && TRUTHY.has(v.trim().toLowerCase());
}

/** Returns the metadata and a copy of the body without the session fields. */
export function extractSessionMeta(
  req: IncomingMessage,
  body: ChatRequest,
): { meta: SessionMeta; forward: ChatRequest } {
  const { session_id, turn_type, session_done, ...forward } = body;
  const hSession = header(req, "x-session-id")?.trim();
  const hType = header(req, "x-turn-type")?.trim();
  const hDone = header(req, "x-session-done");

  const bodySession = session_id === null || session_id === undefined ? "" : String(session_id).trim();
  const sessionId = hSession
    ? { value: hSession.slice(0, 200), source: "header" as const }
    : bodySession
      ? { value: bodySession.slice(0, 200), source: "body" as const }
      : null;
  const typeValue = hType || (typeof turn_type === "string" && turn_type.trim() ? turn_type.trim() : null);
  const turnType = typeValue
    ? { main: typeValue.toLowerCase() === "main", source: (hType ? "header" : "body") as MetaSource }
    : null;
  const done = hDone !== undefined ? truthy(hDone) : truthy(session_done);
  const hPersona = header(req, "x-simulated-persona")?.trim();
  const persona = hPersona && PERSONA.test(hPersona) ? hPersona : null;
  const endUserId = header(req, "x-user-id")?.trim() || null;
  const agentId = header(req, "x-agent-id")?.trim() || null;
  return { meta: { sessionId, turnType, done, persona, endUserId, agentId }, forward };
}
