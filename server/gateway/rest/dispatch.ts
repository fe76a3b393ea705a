// Matches /api/v1 requests against the route table: auth → permission → zod-validated input → service.
import { z } from "zod";
import { assertCan } from "../../access/principal";
import { badRequest, fromZod, unauthorized } from "../../platform/errors";
import { errorResponse, jsonError } from "../httpErrors";
import { assertSameOrigin, resolveContext } from "../context";
import { BODY_LIMITS, readCappedJson } from "../body";
import type { RouteDef } from "./define";
import { routes } from "./routes";

interface Match {
  route: RouteDef;
  params: Record<string, string>;
}

/** A malformed escape (`%zz`) in a path parameter is the caller's error, not a 500. */
function decodeParam(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw badRequest(`Malformed percent-encoding in the path: '${raw.slice(0, 100)}'`);
  }
}

function matchRoute(method: string, path: string): Match | "method-not-allowed" | null {
  let pathMatched = false;
  for (const r of routes) {
    const names: string[] = [];
    const re = new RegExp(`^${r.path.replace(/:(\w+)/g, (_, n: string) => (names.push(n), "([^/]+)"))}/?$`);
    const m = re.exec(path);
    if (!m) continue;
    pathMatched = true;
    if (r.method !== method) continue;
    return { route: r, params: Object.fromEntries(names.map((n, i) => [n, decodeParam(m[i + 1]!)])) };
  }
  return pathMatched ? "method-not-allowed" : null;
}

function queryObject(url: URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const all = url.searchParams.getAll(key);
    out[key] = all.length > 1 ? all : all[0]!;
  }
  return out;
}

function parseWith(schema: z.ZodType | undefined, value: unknown, where: string): unknown {
  if (!schema) return {};
  const r = schema.safeParse(value);
  if (!r.success) throw fromZod(r.error, `Invalid ${where}`);
  return r.data;
}

export async function dispatchRest(req: Request, subpath: string): Promise<Response> {
  try {
    const match = matchRoute(req.method, subpath);
    if (match === null) return jsonError(404, "NOT_FOUND", `No route ${req.method} /api/v1${subpath}`);
    if (match === "method-not-allowed")
      return jsonError(405, "METHOD_NOT_ALLOWED", `${req.method} is not allowed on /api/v1${subpath}`);
    const ctx = await resolveContext(req);
    if (!ctx.principal) throw unauthorized("Send 'Authorization: Bearer <api key>' or sign in");
    assertSameOrigin(ctx);
    assertCan(ctx.principal, match.route.permission);
    const { route: r } = match;
    const input = {
      params: parseWith(r.params, match.params, "path parameters"),
      query: parseWith(r.query, queryObject(new URL(req.url)), "query"),
      body: r.body ? parseWith(r.body, await readCappedJson(req, BODY_LIMITS.rest), "body") : {},
    };
    const result = await r.handler(ctx.principal, input as never);
    return Response.json(result, { status: r.successStatus ?? 200 });
  } catch (err) {
    return errorResponse(err);
  }
}
