// OpenAPI 3.1 generated from the route table and its zod schemas (zod 4's JSON Schema output).
import { z } from "zod";
import { routes } from "./routes";

function schemaOf(s: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(s, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
}

export function openApiDocument(serverUrl = "/") {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = `/api/v1${r.path.replace(/:(\w+)/g, "{$1}")}`;
    const parameters: unknown[] = [];
    for (const [where, schema] of [
      ["path", r.params],
      ["query", r.query],
    ] as const) {
      if (!schema) continue;
      const js = schemaOf(schema) as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, prop] of Object.entries(js.properties ?? {})) {
        parameters.push({
          name,
          in: where,
          required: where === "path" || (js.required ?? []).includes(name),
          schema: prop,
        });
      }
    }
    paths[path] ??= {};
    paths[path]![r.method.toLowerCase()] = {
      tags: [r.tag],
      summary: r.summary,
      description: `Requires the '${r.permission}' permission.`,
      security: [{ bearerAuth: [] }, { cookieAuth: [] }],
      parameters,
      ...(r.body
        ? { requestBody: { required: true, content: { "application/json": { schema: schemaOf(r.body) } } } }
        : {}),
      responses: {
        [String(r.successStatus ?? 200)]: { description: "Success", content: { "application/json": { schema: {} } } },
        "400": { $ref: "#/components/responses/BadRequest" },
        "401": { $ref: "#/components/responses/Error" },
        "403": { $ref: "#/components/responses/Error" },
        "404": { $ref: "#/components/responses/Error" },
      },
    };
  }
  const errorSchema = {
    type: "object",
    properties: {
      error: {
        type: "object",
        properties: {
          code: { type: "string" },
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
