// A user's served adapter changed (channel userAdapter: registered, rolled back, deleted). The proxy drops its held
// route for that user, so the change serves from their next request instead of within the route hold, and, when the
// experiment's adapters are PEFT folders on a multi-LoRA engine, loads the promoted one right away: the engine's
// load call runs after the version is made, not on the user's first request.
import type { AdapterRoutes } from "./adapterRoutes";
import type { ExperimentDirectory } from "./experiments";

export async function onUserAdapterChanged(
  m: { experimentId: string; endUserId: string },
  deps: { experiments: ExperimentDirectory; adapters: AdapterRoutes; log: (msg: string) => void },
): Promise<void> {
  deps.adapters.forget(m.experimentId, m.endUserId);
  const ctx = await deps.experiments.contextOf(m.experimentId).catch(() => null);
  if (!ctx || ctx.config.personalization !== "per-user" || !ctx.upstream.preloadAdapter) return;
  const promoted = await deps.adapters.promoted(m.experimentId, m.endUserId);
  if (!promoted?.path) return;
  // A refusal here is not the user's: their next request tries again and falls back to the base if it must.
  await ctx.upstream
    .preloadAdapter({ id: promoted.id, path: promoted.path })
    .catch((err: Error) => deps.log(`adapter ${promoted.id} could not be preloaded: ${err.message}`));
}
