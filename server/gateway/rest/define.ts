import type { z } from "zod";
import type { Permission, Principal } from "../../access/principal";

type AnyZod = z.ZodType;

export interface RouteDef<P extends AnyZod = AnyZod, Q extends AnyZod = AnyZod, B extends AnyZod = AnyZod> {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** Express-style path under /api/v1, e.g. "/experiments/:id". */
  path: string;
  summary: string;
  tag: string;
  permission: Permission;
  params?: P;
  query?: Q;
  body?: B;
  successStatus?: number;
  handler: (
    principal: Principal,
    input: { params: z.output<P>; query: z.output<Q>; body: z.output<B> },
  ) => Promise<unknown>;
}

/** Identity helper that keeps each route's handler input typed from its own schemas. */
export function route<P extends AnyZod, Q extends AnyZod, B extends AnyZod>(def: RouteDef<P, Q, B>): RouteDef {
  return def as unknown as RouteDef;
}
