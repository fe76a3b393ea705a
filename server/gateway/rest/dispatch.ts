// Matches /api/v1 requests against the REST table: auth → permission → one input assembled from path
// parameters, query string and JSON body, validated by the procedure's input schema → its handler.
import { z } from "zod";
import { assertCan } from "../../access/principal";
import { badRequest, fromZod, unauthorized } from "../../platform/errors";
import { errorResponse, reasonError } from "../httpErrors";
import { assertSameOrigin, resolveContext } from "../context";
import { BODY_LIMITS, readCappedJson } from "../body";
import { routes, type RestRoute } from "./table";

interface Match {
  route: RestRoute;
  params: Record<string, string>;
}

/**
 * A malformed escape (`%zz`) in a path parameter is the caller's error, not a 500; so is a control character
 * (`%00` would reach Postgres, which cannot store NUL in text, and fail there).
 */
function decodeParam(raw: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw badRequest(`Malformed percent-encoding in the path: '${raw.slice(0, 100)}'`);
  }
  if (/[\u0000-\u001f\u007f]/.test(decoded)) throw badRequest("Control characters are not allowed in a path parameter");
  return decoded;
}

function matchRoute(method: string, path: string): Match | "method-not-allowed" | null {
  let pathMatched = false;
  for (const r of routes) {
    const m = r.pattern.exec(path);
    if (!m) continue;
    pathMatched = true;
    if (r.method !== method) continue;
    return { route: r, params: Object.fromEntries(r.params.map((n, i) => [n, decodeParam(m[i + 1]!)])) };
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

/** A POST/PATCH body is a JSON object of input fields (read under the REST cap); GET and DELETE carry none. */
async function bodyFields(req: Request): Promise<Record<string, unknown>> {
  if (req.method !== "POST" && req.method !== "PATCH") return {};
  const body = await readCappedJson(req, BODY_LIMITS.rest);
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw badRequest("Invalid body: expected a JSON object");
  return body as Record<string, unknown>;
}

function parseInput(schema: z.ZodType | undefined, value: unknown): unknown {
  if (!schema) return undefined;
  const r = schema.safeParse(value);
  if (!r.success) throw fromZod(r.error, "Invalid input");
  return r.data;
}

export async function dispatchRest(req: Request, subpath: string): Promise<Response> {
  try {
    const match = matchRoute(req.method, subpath);
    if (match === null) return reasonError("route_not_found", `No route ${req.method} /api/v1${subpath}`);
    if (match === "method-not-allowed")
      return reasonError("method_not_allowed", `${req.method} is not allowed on /api/v1${subpath}`);
    const ctx = await resolveContext(req);
    if (!ctx.principal) throw unauthorized("Send 'Authorization: Bearer <api key>' or sign in");
    assertSameOrigin(ctx);
    const { route: r } = match;
    if (r.permission !== "authenticated") assertCan(ctx.principal, r.permission);
    // Path parameters win over query and body fields of the same name.
    const fields = { ...queryObject(new URL(req.url)), ...(await bodyFields(req)), ...match.params };
    const result = await r.handler({ principal: ctx.principal, input: parseInput(r.input, fields) as never });
    return Response.json(result, { status: r.status });
  } catch (err) {
    return errorResponse(err);
  }
}
