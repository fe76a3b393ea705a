// Which runner a claimed episode goes to, by its environment: a harness (a stock agent as a black box in
// local-bwrap), a remote pool by its protocol (terminal: our agent loop on the pool's tools; swe: bash in the
// instance's container, scored by its diff; gui: screenshots and pyautogui actions), or our own agent loop in
// the local sandbox. The worker calls this; scripts and
// tests may call a runner directly.
import { environmentHarnessSchema, resolveHarness } from "../harness/schema";
import type { SandboxProvider } from "../sandbox/provider";
import { RemotePoolProvider } from "../sandbox/remote/provider";
import { environmentPoolSchema } from "../schemas";
import { executeGuiEpisode } from "./guiRunner";
import { executeHarnessEpisode } from "./harnessRunner";
import { executePoolEpisode } from "./poolRunner";
import { executeEpisode, loadClaimed, type AgentEndpoint } from "./runner";
import { executeSweEpisode } from "./sweRunner";

export interface DispatchOptions {
  agent: AgentEndpoint;
  /** The local sandbox (tests pass their own; default: the environment's provider). */
  provider?: SandboxProvider;
  /** The host folder of the harness agent's installation (the operator's HARNESS_AGENT_INSTALL). */
  agentInstall?: string;
  signal?: AbortSignal;
}

/**
 * One pool provider per environment and process: it counts its open leases per pool (least-loaded
 * allocation) and heartbeats them, so every episode of the environment in this process must share it.
 * Environments never change their pools in place (there is no update), so the id is the key.
 */
const pools = new Map<string, RemotePoolProvider>();

export function poolProviderFor(environment: { id: string; pool: unknown }): RemotePoolProvider {
  let p = pools.get(environment.id);
  if (!p) {
    const { protocol, urls } = environmentPoolSchema.parse(environment.pool);
    p = new RemotePoolProvider({ protocol, urls });
    pools.set(environment.id, p);
  }
  return p;
}

/** Runs a claimed (RUNNING) episode with the runner its environment calls for. */
export async function executeClaimedEpisode(episodeId: string, opts: DispatchOptions) {
  const { episode } = await loadClaimed(episodeId);
  const env = episode.environment;
  if (env.harness !== null) {
    const harness = resolveHarness(environmentHarnessSchema.parse(env.harness));
    return executeHarnessEpisode(episodeId, { ...opts, harness });
  }
  if (env.provider !== "remote-pool") return executeEpisode(episodeId, opts);
  const pool = poolProviderFor(env);
  switch (pool.protocol) {
    case "terminal":
      return executePoolEpisode(episodeId, { ...opts, pool });
    case "gui":
      return executeGuiEpisode(episodeId, { ...opts, pool });
    case "swe":
      return executeSweEpisode(episodeId, { ...opts, pool });
  }
}
