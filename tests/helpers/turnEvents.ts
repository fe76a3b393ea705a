// A recorder turn event as the proxy writes it, for tests of the recorder (its plan and its application): parsed by
// the event schema, so the fixture cannot drift from it.
import { TurnEventSchema, type TurnEvent } from "../../server/proxy/recorder/events";

let n = 0;

/** A completed main turn of `session` (ids unique per call), with `over` on top. */
export function turnEvent(session: string, over: Partial<TurnEvent> = {}): TurnEvent {
  n++;
  return TurnEventSchema.parse({
    t: "turn",
    id: `turn-${process.pid}-${n}`,
    requestId: `req-${process.pid}-${n}`,
    experimentId: "exp",
    runId: null,
    session: { externalId: session, idSource: "header" },
    index: null,
    turnType: "MAIN",
    typeSource: "default",
    status: "OK",
    systemHash: null,
    toolsHash: null,
    blobs: [],
    messagesOffset: 0,
    messagesDelta: [],
    params: {},
    content: "hi",
    toolCalls: null,
    reasoning: null,
    finishReason: "stop",
    tokenIds: [],
    logprobs: [],
    promptTokens: null,
    completionTokens: null,
    ttftMs: null,
    latencyMs: null,
    policyVersion: 0,
    upstreamModel: null,
    error: null,
    createdAt: 1000 + n,
    link: null,
    done: false,
    finalTurnId: null,
    ...over,
  });
}
