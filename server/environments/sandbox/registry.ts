// The sandbox providers by name. One instance per process: a provider owns its live leases (and, as root,
// the uids they run as), so every caller in a process must share it.
import { LocalBwrapProvider } from "./bwrap";
import { ContainerProvider } from "./container";
import type { SandboxProvider } from "./provider";

/** `remote-pool` is not here: its tasks live on the pools, so it has its own interface (remote/provider.ts). */
export const PROVIDERS = ["local-bwrap", "docker"] as const;
export type ProviderName = (typeof PROVIDERS)[number];

const instances = new Map<ProviderName, SandboxProvider>();

export function sandboxProvider(name: ProviderName): SandboxProvider {
  let p = instances.get(name);
  if (!p) {
    p = name === "docker" ? new ContainerProvider() : new LocalBwrapProvider();
    instances.set(name, p);
  }
  return p;
}
