// OpenAPI 3.1 generated from the REST table (the procedure definitions) and their zod schemas (zod 4's JSON
// Schema output): path parameters, query or body from the one input schema, the response from the output schema.
import { z } from "zod";
import type { RawEndpoint } from "../procedures/define";
import { ERROR_REASONS } from "../../platform/errors";
import { routes, type RestRoute } from "./table";

type JsonSchema = { properties?: Record<string, unknown>; required?: string[]; [k: string]: unknown };

function schemaOf(s: z.ZodType, io: "input" | "output"): JsonSchema {
  return z.toJSONSchema(s, {
    io,
    unrepresentable: "any",
    // Dates leave as ISO strings (no tRPC transformer; Response.json on REST): say so.
    override: (ctx) => {
      const type = ctx.zodSchema._zod.def.type;
      if (type === "date") Object.assign(ctx.jsonSchema, { type: "string", format: "date-time" });
      // JSON has no NaN: it leaves as null.
      if (type === "nan") Object.assign(ctx.jsonSchema, { type: "null" });
    },
  }) as JsonSchema;
}

function inputParts(r: RestRoute) {
  const parameters: unknown[] = [];
  if (!r.input) return { parameters };
  const js = schemaOf(r.input, "input");
  const props = js.properties ?? {};
  const required = js.required ?? [];
  for (const name of r.params) parameters.push({ name, in: "path", required: true, schema: props[name] ?? {} });
  const rest = Object.entries(props).filter(([name]) => !r.params.includes(name));
  if (r.method === "GET" || r.method === "DELETE") {
    for (const [name, prop] of rest)
      parameters.push({ name, in: "query", required: required.includes(name), schema: prop });
    return { parameters };
  }
  const { $schema: _drop, ...body } = js;
  const bodySchema = {
    ...body,
    properties: Object.fromEntries(rest),
    required: required.filter((n) => !r.params.includes(n)),
  };
  return { parameters, requestBody: { required: true, content: { "application/json": { schema: bodySchema } } } };
}

function responseSchema(r: RestRoute): unknown {
  if (!r.output) return {};
  return withoutDialect(schemaOf(r.output, "output"));
}

function rawOperation(e: RawEndpoint) {
  const parameters = Object.entries(e.query ? (schemaOf(e.query, "input").properties ?? {}) : {}).map(
    ([name, schema]) => ({
      name,
      in: "query",
      required: e.query?.shape[name]?.safeParse(undefined).success === false,
      schema,
    }),
  );
  const content = (c: { contentType: string; schema?: z.ZodType }, io: "input" | "output") => ({
    [c.contentType]: { schema: c.schema ? withoutDialect(schemaOf(c.schema, io)) : {} },
  });
  return {
    operationId: `raw:${e.method} ${e.path}`,
    tags: [e.tag],
    summary: e.summary,
    description:
      e.permission === "public"
        ? "Needs no credential."
        : `Requires the '${e.permission}' permission (checked by the endpoint).`,
    ...(e.permission === "public" ? {} : { security: [{ bearerAuth: [] }, { cookieAuth: [] }] }),
    parameters,
    ...(e.body ? { requestBody: { required: true, content: content(e.body, "input") } } : {}),
    responses: {
      "200": { description: "Success", content: content(e.response, "output") },
      "400": { $ref: "#/components/responses/BadRequest" },
      "401": { $ref: "#/components/responses/Error" },
      "403": { $ref: "#/components/responses/Error" },
    },
  };
}

function withoutDialect(js: JsonSchema): JsonSchema {
  const { $schema: _drop, ...rest } = js;
  return rest;
}

/** The REST table's operations and the raw endpoints', each with its permission and response schema. */
export function openApiDocument(serverUrl = "/", raw: readonly RawEndpoint[] = []) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = `/api/v1${r.path.replace(/:(\w+)/g, "{$1}")}`;
    paths[path] ??= {};
    paths[path]![r.method.toLowerCase()] = {
      operationId: r.name,
      tags: [r.tag],
      summary: r.summary,
      description:
        r.permission === "authenticated"
          ? "Requires any signed-in user or API key."
          : `Requires the '${r.permission}' permission.`,
      security: [{ bearerAuth: [] }, { cookieAuth: [] }],
      ...inputParts(r),
      responses: {
        [String(r.status)]: {
          description: "Success",
          content: { "application/json": { schema: responseSchema(r) } },
        },
        "400": { $ref: "#/components/responses/BadRequest" },
        "401": { $ref: "#/components/responses/Error" },
        "403": { $ref: "#/components/responses/Error" },
        "404": { $ref: "#/components/responses/Error" },
      },
    };
  }
  for (const e of raw) {
    paths[e.path] ??= {};
    paths[e.path]![e.method.toLowerCase()] = rawOperation(e);
  }
  const errorSchema = {
    type: "object",
    properties: {
      error: {
        type: "object",
        properties: {
          code: { type: "string" },
          reason: { type: "string", enum: Object.keys(ERROR_REASONS) },
          message: { type: "string" },
          issues: {
            type: "array",
            items: { type: "object", properties: { path: { type: "string" }, message: { type: "string" } } },
          },
        },
      },
    },
  };
  return {
    openapi: "3.1.0",
    info: {
      title: "OpenClaw-RL Console API",
      version: "1",
      description: "REST API of the control plane. Lists use cursor pagination: pass `nextCursor` back as `cursor`.",
    },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "API key (ocrl_…)" },
        cookieAuth: { type: "apiKey", in: "cookie", name: "ocrl_session" },
      },
      responses: {
        BadRequest: {
          description: "Invalid input: every zod issue with its field path",
          content: { "application/json": { schema: errorSchema } },
        },
        Error: { description: "Error", content: { "application/json": { schema: errorSchema } } },
      },
    },
  };
}
