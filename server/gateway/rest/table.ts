// The REST table under /api/v1, generated from the procedure definitions that carry a `rest` binding: used by
// the dispatcher, the OpenAPI document and the access-control tests.
import type { z } from "zod";
import { procedures } from "../procedures";
import { flatten, type Access, type AnyProcedure, type RestBinding } from "../procedures/define";

export interface RestRoute {
  /** The procedure's tRPC path, e.g. "experiments.get" (the OpenAPI operationId). */
  name: string;
  method: RestBinding["method"];
  path: string;
  status: number;
  permission: Access;
  summary: string;
  tag: string;
  input?: z.ZodType;
  output?: z.ZodType;
  handler: AnyProcedure["handler"];
  /** The `:name` placeholders of the path, in order; each is an input field. */
  params: string[];
  pattern: RegExp;
}

function toRoute(name: string, feature: string, def: AnyProcedure, rest: RestBinding): RestRoute {
  const params: string[] = [];
  const source = rest.path.replace(/:(\w+)/g, (_, n: string) => (params.push(n), "([^/]+)"));
  return {
    name,
    method: rest.method,
    path: rest.path,
    status: rest.status ?? 200,
    permission: def.permission,
    summary: def.summary,
    tag: def.tag ?? feature,
    input: def.input,
    output: def.output,
    handler: def.handler,
    params,
    pattern: new RegExp(`^${source}/?$`),
  };
}

/** Routes with fewer path parameters first, so a literal segment (/evaluations/compare) beats a `:id`. */
export const routes: RestRoute[] = flatten(procedures)
  .flatMap(({ path, feature, def }) => (def.rest ? [toRoute(path, feature, def, def.rest)] : []))
  .sort((a, b) => a.params.length - b.params.length);
