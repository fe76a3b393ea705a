// The tRPC router, generated from the procedure definitions (server/gateway/procedures): each definition
// becomes a query or mutation at its path, behind the layer that checks its permission (trpc.ts), with its
// input and output schemas. The mapped type keeps every procedure's input and output precise for the UI.
import type { z } from "zod";
import type { TRPCMutationProcedure, TRPCQueryProcedure } from "@trpc/server";
import { authedProcedure, router, scopedProcedure, type ProcedureMeta } from "./trpc";
import { procedures } from "../procedures";
import { isProcedure, type AnyProcedure, type Procedure, type ProcedureTree } from "../procedures/define";

type TrpcInput<I> = I extends z.ZodType ? z.input<I> : void;
type TrpcOutput<O, R> = O extends z.ZodType ? z.output<O> : Awaited<R>;
type TrpcDef<I, O, R> = { meta: ProcedureMeta; input: TrpcInput<I>; output: TrpcOutput<O, R> };

/** The tRPC procedure type of a definition, and of a tree of them. */
export type TrpcOf<D> =
  D extends Procedure<infer K, infer I, infer O, infer R>
    ? K extends "query"
      ? TRPCQueryProcedure<TrpcDef<I, O, R>>
      : TRPCMutationProcedure<TrpcDef<I, O, R>>
    : { [N in keyof D]: TrpcOf<D[N]> };

type Resolver = (opts: { ctx: { principal: unknown }; input: unknown }) => unknown;
interface Builder {
  input(schema: z.ZodType): Builder;
  output(schema: z.ZodType): Builder;
  query(resolve: Resolver): unknown;
  mutation(resolve: Resolver): unknown;
}

function toTrpc(def: AnyProcedure): unknown {
  let b = (def.permission === "authenticated"
    ? authedProcedure
    : scopedProcedure(def.permission)) as unknown as Builder;
  // The permission middleware sits before the input parser: a caller without it gets 403, never a 400.
  if (def.input) b = b.input(def.input);
  if (def.output) b = b.output(def.output);
  const resolve: Resolver = ({ ctx, input }) =>
    def.handler({ principal: ctx.principal as Parameters<AnyProcedure["handler"]>[0]["principal"], input });
  return def.kind === "query" ? b.query(resolve) : b.mutation(resolve);
}

function build(tree: ProcedureTree): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(tree).map(([name, node]) => [name, isProcedure(node) ? toTrpc(node) : build(node)]),
  );
}

export const appRouter = router(build(procedures) as TrpcOf<typeof procedures>);

export type AppRouter = typeof appRouter;
