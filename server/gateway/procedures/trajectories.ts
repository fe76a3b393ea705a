// Recorded sessions and turns (read-only browsing of trajectories).
import { z } from "zod";
import * as trajectories from "../../trajectories/service";
import { IdSchema } from "../../platform/schemas";
import {
  ConversationInput,
  SessionGetParams,
  SessionGetQuery,
  SessionListInput,
  TurnListInput,
} from "../../trajectories/schemas";
import { procedure } from "./define";
import {
  SessionsConversationOutput,
  SessionsGetOutput,
  SessionsListOutput,
  TurnsGetOutput,
  TurnsListOutput,
} from "./outputs/trajectories";

export const sessionProcedures = {
  list: procedure({
    kind: "query",
    permission: "read",
    tag: "trajectories",
    summary: "List recorded sessions",
    input: SessionListInput,
    rest: { method: "GET", path: "/sessions" },
    output: SessionsListOutput,
    handler: ({ principal, input }) => trajectories.listSessions(principal, input),
  }),
  get: procedure({
    kind: "query",
    permission: "read",
    tag: "trajectories",
    summary:
      "A session with its turns, by our id or the client's session id (experimentId picks one where several experiments use it)",
    input: SessionGetParams.extend(SessionGetQuery.shape),
    rest: { method: "GET", path: "/sessions/:id" },
    output: SessionsGetOutput,
    handler: ({ principal, input }) => trajectories.getSession(principal, input.id, input.experimentId),
  }),
  conversation: procedure({
    kind: "query",
    permission: "read",
    tag: "trajectories",
    summary: "A page of a session's turns with messages, judgments, labels and training use",
    input: ConversationInput,
    rest: { method: "GET", path: "/sessions/:sessionId/conversation" },
    output: SessionsConversationOutput,
    handler: ({ principal, input }) => trajectories.getConversation(principal, input),
  }),
};

export const turnProcedures = {
  list: procedure({
    kind: "query",
    permission: "read",
    tag: "trajectories",
    summary: "List turns",
    input: TurnListInput,
    rest: { method: "GET", path: "/turns" },
    output: TurnsListOutput,
    handler: ({ principal, input }) => trajectories.listTurns(principal, input),
  }),
  get: procedure({
    kind: "query",
    permission: "read",
    tag: "trajectories",
    summary: "A turn with its full request, judgments, votes and labels",
    input: z.object({ id: IdSchema }),
    rest: { method: "GET", path: "/turns/:id" },
    output: TurnsGetOutput,
    handler: ({ principal, input }) => trajectories.getTurn(principal, input.id),
  }),
};
