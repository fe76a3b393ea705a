// A user's served adapter changed (channel userAdapter: registered, rolled back, deleted). The proxy drops its held
// route for that user, so the change serves from their next request instead of within the route hold, and, when the
// experiment's adapters are PEFT folders on a multi-LoRA engine, loads the promoted one right away: the engine's
// load call runs after the version is made, not on the user's first request.
import type { AdapterRoutes } from "./adapterRoutes";
import type { ExperimentDirectory } from "./experiments";

/** The owner key of a user's engine adapters (userLora.ts): one experiment's one end user. */
export function adapterOwner(experimentId: string, endUserId: string): string {
  return `${experimentId}\u0000${endUserId}`;
}

export async function onUserAdapterChanged(
  m: { experimentId: string; endUserId: string },
  deps: { experiments: ExperimentDirectory; adapters: AdapterRoutes; log: (msg: string) => void },
): Promise<void> {
  deps.adapters.forget(m.experimentId, m.endUserId);
  const ctx = await deps.experiments.contextOf(m.experimentId).catch(() => null);
  if (!ctx || ctx.config.personalization !== "per-user" || !ctx.upstream.preloadAdapter) return;
  const owner = adapterOwner(m.experimentId, m.endUserId);
  const promoted = await deps.adapters.promoted(m.experimentId, m.endUserId);
  // Served the base again (deleted, or rolled back past the first version): nothing of theirs stays in the engine.
  if (!promoted) return ctx.upstream.releaseAdapters?.(owner);
  if (!promoted.path) return;
  // A refusal here is not the user's: their next request tries again and falls back to the base if it must.
  await ctx.upstream
    .preloadAdapter({ id: promoted.id, path: promoted.path, owner })
    .catch((err: Error) => deps.log(`adapter ${promoted.id} could not be preloaded: ${err.message}`));
}
