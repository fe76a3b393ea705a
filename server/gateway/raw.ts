// The endpoints outside the procedure definitions, because they stream, take a non-JSON body, set cookies or
// relay another server's answer. One table: handler.ts serves from it, the OpenAPI document lists it, and each
// entry names the permission its endpoint checks itself (endpoints/*).
import { z } from "zod";
import type { RawEndpoint } from "./procedures/define";
import { healthReport } from "./health";
import { login, logout } from "./endpoints/auth";
import { metricsStream } from "./endpoints/metricsStream";
import { playgroundChat, playgroundFeedback } from "./endpoints/playground";
import { exportTurns, importRecords } from "./endpoints/exports";
import { openApiDocument } from "./rest/openapi";
import { LoginInput } from "../users/schemas";
import { TurnFilterSchema } from "../trajectories/schemas";

export const rawEndpoints: RawEndpoint[] = [
  {
    method: "GET",
    path: "/api/health",
    permission: "public",
    summary: "Liveness and dependency status (database, Redis, workers)",
    tag: "meta",
    response: { contentType: "application/json" },
    serve: async () => Response.json(await healthReport()),
  },
  {
    method: "GET",
    path: "/api/openapi.json",
    permission: "public",
    summary: "This document",
    tag: "meta",
    response: { contentType: "application/json" },
    serve: async (req) => Response.json(openApiDocument(new URL(req.url).origin, rawEndpoints)),
  },
  {
    method: "POST",
    path: "/api/auth/login",
    permission: "public",
    summary: "Sign in: sets the sealed session cookie (rate-limited per address and account)",
    tag: "auth",
    body: { contentType: "application/json", schema: LoginInput },
    response: { contentType: "application/json" },
    serve: login,
  },
  {
    method: "POST",
    path: "/api/auth/logout",
    permission: "public",
    summary: "Sign out: ends every session of the signed-in user and clears the cookie",
    tag: "auth",
    response: { contentType: "application/json", schema: z.object({ ok: z.literal(true) }) },
    serve: logout,
  },
  {
    method: "GET",
    path: "/api/stream/metrics",
    permission: "read",
    summary: "Server-sent events: new metric points of a run or experiment as they are written",
    tag: "metrics",
    response: { contentType: "text/event-stream" },
    serve: metricsStream,
  },
  {
    method: "POST",
    path: "/api/playground/chat",
    permission: "review",
    summary: "Chat with an experiment's policy through its proxy (the proxy's streamed answer, relayed)",
    tag: "playground",
    body: { contentType: "application/json" },
    response: { contentType: "text/event-stream" },
    serve: playgroundChat,
  },
  {
    method: "POST",
    path: "/api/playground/feedback",
    permission: "review",
    summary: "Feedback on a playground turn, relayed to the proxy (becomes a reviewer label)",
    tag: "playground",
    body: { contentType: "application/json" },
    response: { contentType: "application/json" },
    serve: playgroundFeedback,
  },
  {
    method: "GET",
    path: "/api/export/turns",
    permission: "read",
    summary: "Export turns matching the trajectory filters as NDJSON, streamed",
    tag: "trajectories",
    query: TurnFilterSchema,
    response: { contentType: "application/x-ndjson" },
    serve: exportTurns,
  },
  {
    method: "POST",
    path: "/api/import/openclaw",
    permission: "write",
    summary: "Import OpenClaw JSONL (turn and/or PRM records) into an experiment (?experimentId=…); answers a report",
    tag: "trajectories",
    query: z.object({ experimentId: z.string() }),
    body: { contentType: "application/x-ndjson" },
    response: { contentType: "application/json" },
    serve: importRecords,
  },
];

export function rawEndpoint(method: string, path: string): RawEndpoint | undefined {
  return rawEndpoints.find((e) => e.path === path && e.method === method);
}
