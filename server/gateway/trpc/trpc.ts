// tRPC procedures are layered: public → authenticated → permission-checked (and experiment-scoped in
// the services). Domain errors map onto tRPC codes; their reason travels in `data.reason` (as REST's
// `error.reason`), zod issues in `data.issues`.
import { initTRPC, TRPCError } from "@trpc/server";
import { ZodError } from "zod";
import type { Permission } from "../../access/principal";
import { assertCan } from "../../access/principal";
import {
  AppError,
  defaultReason,
  zodIssues,
  type ErrorCode,
  type ErrorReason,
  type Issue,
} from "../../platform/errors";
import { assertSameOrigin, type RequestContext } from "../context";

const TRPC_CODE = {
  BAD_REQUEST: "BAD_REQUEST",
  UNAUTHORIZED: "UNAUTHORIZED",
  FORBIDDEN: "FORBIDDEN",
  NOT_FOUND: "NOT_FOUND",
  METHOD_NOT_ALLOWED: "METHOD_NOT_SUPPORTED",
  CONFLICT: "CONFLICT",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  UNSUPPORTED_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  TOO_MANY_REQUESTS: "TOO_MANY_REQUESTS",
  INTERNAL: "INTERNAL_SERVER_ERROR",
} as const;

/** Each procedure declares the permission it needs; the access-control test enumerates them. */
export interface ProcedureMeta {
  permission?: Permission | "authenticated";
}

const t = initTRPC
  .context<RequestContext>()
  .meta<ProcedureMeta>()
  .create({
    errorFormatter({ shape, error }) {
      const cause = error.cause;
      const issues: Issue[] | null =
        cause instanceof ZodError
          ? zodIssues(cause)
          : cause instanceof AppError && cause.issues.length
            ? cause.issues
            : null;
      return { ...shape, data: { ...shape.data, stack: undefined, issues, reason: reasonOf(error) } };
    },
  });

const APP_CODE = Object.fromEntries(Object.entries(TRPC_CODE).map(([app, trpc]) => [trpc, app])) as Record<
  TRPCError["code"],
  ErrorCode | undefined
>;

/** A domain error's own reason; otherwise (tRPC's input parsing, its own 401s) the default of the mapped code. */
function reasonOf(error: TRPCError): ErrorReason {
  if (error.cause instanceof AppError) return error.cause.reason;
  return defaultReason(APP_CODE[error.code] ?? "INTERNAL");
}

/** Converts domain errors thrown by services into TRPCErrors with the matching code. */
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof AppError) {
    const app = result.error.cause;
    throw new TRPCError({ code: TRPC_CODE[app.code], message: app.message, cause: app });
  }
  return result;
});

export const router = t.router;
export const publicProcedure = t.procedure.use(mapErrors);

export const authedProcedure = publicProcedure.meta({ permission: "authenticated" }).use(({ ctx, next }) => {
  if (!ctx.principal) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in or send an API key" });
  assertSameOrigin(ctx);
  return next({ ctx: { ...ctx, principal: ctx.principal } });
});

export const scopedProcedure = (perm: Permission) =>
  authedProcedure.meta({ permission: perm }).use(({ ctx, next }) => {
    assertCan(ctx.principal, perm);
    return next();
  });
