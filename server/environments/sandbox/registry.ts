// The sandbox providers by name. One instance per process: a provider owns its live leases (and, as root,
// the uids they run as), so every caller in a process must share it.
import { LocalBwrapProvider } from "./bwrap";
import type { SandboxProvider } from "./provider";

export const PROVIDERS = ["local-bwrap"] as const;
export type ProviderName = (typeof PROVIDERS)[number];

const instances = new Map<ProviderName, SandboxProvider>();

export function sandboxProvider(name: ProviderName): SandboxProvider {
  let p = instances.get(name);
  if (!p) {
    p = new LocalBwrapProvider();
    instances.set(name, p);
  }
  return p;
}
