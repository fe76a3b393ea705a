// Authorization rules that need the caller and a row: which experiment a list may show, and load-then-authorize
// (a missing row is a 404; a row of an experiment the caller may not see is a 403).
import { db, type Prisma } from "../platform/db/client";
import { appError, notFound } from "../platform/errors";
import { assertExperimentAccess, assertRunAccess, boundExperimentId, type Principal } from "./principal";

/** The experiment a list may show: a bound key's own, whatever the caller asked for. */
export function scopeExperiment(p: Principal, experimentId: string | undefined): string | undefined {
  const bound = boundExperimentId(p);
  if (bound && experimentId && experimentId !== bound)
    throw appError("other_experiment", "This API key is bound to a different experiment");
  return bound ?? experimentId;
}

/** The row, or a 404 naming what was missing; then the caller's access to the row's experiment. */
export function authorizeRow<T>(
  p: Principal,
  what: string,
  id: string,
  row: T | null,
  experimentOf: (row: T) => string,
): T {
  if (!row) throw notFound(what, id);
  assertExperimentAccess(p, experimentOf(row));
  return row;
}

/** Experiments are addressed by id or slug everywhere (URLs, REST, the proxy's `model`). */
export const experimentIdOrSlug = (idOrSlug: string) =>
  ({ OR: [{ id: idOrSlug }, { slug: idOrSlug }] }) satisfies Prisma.ExperimentWhereInput;

export async function loadExperimentFor(p: Principal, idOrSlug: string, client: Prisma.TransactionClient = db()) {
  return authorizeRow(
    p,
    "Experiment",
    idOrSlug,
    await client.experiment.findFirst({ where: experimentIdOrSlug(idOrSlug) }),
    (e) => e.id,
  );
}

export async function loadRunFor(p: Principal, id: string, client: Prisma.TransactionClient = db()) {
  assertRunAccess(p, id);
  return authorizeRow(p, "Run", id, await client.run.findUnique({ where: { id } }), (r) => r.experimentId);
}
