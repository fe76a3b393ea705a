// One definition per endpoint: its input, output, permission and handler, and optionally the REST method and
// path it answers on. The tRPC router (trpc/root.ts), the REST table (rest/table.ts) and the OpenAPI document
// (rest/openapi.ts) are generated from these definitions, and the permission is checked there, once.
import type { z } from "zod";
import type { Permission, Principal } from "../../access/principal";

/** "authenticated": any signed-in user or API key, whatever its permissions. */
export type Access = Permission | "authenticated";

export interface RestBinding {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** Express-style path under /api/v1; each `:name` is the input field of that name, e.g. "/experiments/:id". */
  path: string;
  /** Success status; 200 when absent. */
  status?: number;
}

type InputOf<I> = I extends z.ZodType ? z.output<I> : undefined;
type Returned<O> = O extends z.ZodType ? z.input<O> : unknown;

export interface Procedure<
  K extends "query" | "mutation" = "query" | "mutation",
  I extends z.ZodType | undefined = z.ZodType | undefined,
  O extends z.ZodType | undefined = z.ZodType | undefined,
  R = unknown,
> {
  readonly kind: K;
  readonly permission: Access;
  readonly input?: I;
  readonly output?: O;
  readonly summary: string;
  /** OpenAPI tag; the feature's name when absent. */
  readonly tag?: string;
  readonly rest?: RestBinding;
  readonly handler: (call: { principal: Principal; input: InputOf<I> }) => Promise<R> | R;
}

export type AnyProcedure = Procedure<"query" | "mutation", z.ZodType | undefined, z.ZodType | undefined, unknown>;

/** A feature's definitions, or the tree of features: a procedure's path is its keys joined by dots. */
export interface ProcedureTree {
  readonly [name: string]: AnyProcedure | ProcedureTree;
}

/** Identity helper: keeps each definition's handler typed from its own input and output schemas. */
export function procedure<
  const K extends "query" | "mutation",
  I extends z.ZodType | undefined = undefined,
  O extends z.ZodType | undefined = undefined,
  R extends Returned<O> = Returned<O>,
>(def: Procedure<K, I, O, R>): Procedure<K, I, O, R> {
  return def;
}

export function isProcedure(node: AnyProcedure | ProcedureTree): node is AnyProcedure {
  return typeof node.handler === "function" && typeof node.kind === "string";
}

/** Every definition with its dotted path and its top-level feature (the default tag). */
export function flatten(tree: ProcedureTree, prefix = ""): { path: string; feature: string; def: AnyProcedure }[] {
  return Object.entries(tree).flatMap(([name, node]) => {
    const path = prefix ? `${prefix}.${name}` : name;
    if (isProcedure(node)) return [{ path, feature: path.split(".")[0]!, def: node }];
    return flatten(node, path);
  });
}

/** An endpoint outside the definitions (streams, cookies, relays, non-JSON bodies): server/gateway/raw.ts. */
export interface RawEndpoint {
  method: "GET" | "POST";
  /** Full path under the site root, e.g. "/api/auth/login". */
  path: string;
  /** "public": no credential needed. */
  permission: Access | "public";
  summary: string;
  tag: string;
  query?: z.ZodObject;
  body?: { contentType: string; schema?: z.ZodType };
  response: { contentType: string; schema?: z.ZodType };
  serve: (req: Request) => Promise<Response>;
}
