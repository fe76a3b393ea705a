// Outbound-call policy for user-configured upstream URLs (policy servers, judges, teachers, Ray, trainer
// endpoints): the one module every outbound URL goes through. Loopback, private, link-local and metadata
// addresses are refused unless the operator allows them, so the control plane cannot be turned into an SSRF
// tool. Checked at save time and again at call time: the proxy validates the address it connects to
// (`egressLookup`, no second resolution to rebind), and so do fetch-based clients through `egressFetch`
// (its connections use the same lookup; redirects are never followed).
import { Agent } from "undici";
import { settings, type EnvSource } from "./env";
import { lookup } from "node:dns/promises";
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { BlockList, isIP } from "node:net";

export interface EgressPolicy {
  /** UPSTREAM_ALLOW_PRIVATE=1: allow every address (single-user setups with local SGLang). */
  allowPrivate: boolean;
  /** UPSTREAM_ALLOWLIST: comma-separated hosts, host:port pairs or CIDRs that are allowed even if private. */
  allowlist: string[];
}

export class EgressRefusedError extends Error {}

const PRIVATE = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  PRIVATE.addSubnet(net, bits, "ipv4");
for (const [net, bits] of [
  ["::", 96], // unspecified, loopback and IPv4-compatible (::a.b.c.d)
  ["64:ff9b::", 96], // NAT64: reaches any IPv4 address, private ones included
  ["100::", 64], // discard-only
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4: embeds an IPv4 address
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10], // deprecated site-local
  ["ff00::", 8],
] as const)
  PRIVATE.addSubnet(net, bits, "ipv6");

export function policyFromEnv(source?: EnvSource): EgressPolicy {
  const s = settings("egress", source);
  return { allowPrivate: s.UPSTREAM_ALLOW_PRIVATE, allowlist: s.UPSTREAM_ALLOWLIST };
}

function isPrivate(address: string): boolean {
  const family = isIP(address) === 6 ? "ipv6" : "ipv4";
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  return mapped ? PRIVATE.check(mapped, "ipv4") : PRIVATE.check(address, family);
}

function allowlisted(policy: EgressPolicy, host: string, port: string, address: string): boolean {
  return policy.allowlist.some((entry) => {
    if (entry.includes("/")) {
      const [net, bits] = entry.split("/");
      const list = new BlockList();
      const family = isIP(net!) === 6 ? "ipv6" : "ipv4";
      try {
        list.addSubnet(net!, Number(bits), family);
      } catch {
        return false;
      }
      return isIP(address) === (family === "ipv6" ? 6 : 4) && list.check(address, family);
    }
    const [h, p] =
      entry.includes("]:") || /^[^:]+:\d+$/.test(entry)
        ? [entry.slice(0, entry.lastIndexOf(":")), entry.slice(entry.lastIndexOf(":") + 1)]
        : [entry, undefined];
    const hostMatches = h!.replace(/^\[|\]$/g, "").toLowerCase() === host || h === address;
    return hostMatches && (p === undefined || p === port);
  });
}

/** Throws EgressRefusedError with a message saying how to allow the address, or resolves. */
export async function assertEgressAllowed(
  rawUrl: string,
  policy: EgressPolicy = policyFromEnv(),
  /** At save time a name that does not resolve *yet* is accepted; the call-time check still applies. */
  opts: { allowUnresolvable?: boolean } = {},
): Promise<void> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new EgressRefusedError(`'${rawUrl}' is not a valid URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new EgressRefusedError(`only http(s) upstreams are allowed, not ${url.protocol}`);
  if (url.username || url.password)
    throw new EgressRefusedError("credentials in the URL are not allowed: put the key in the API key field");
  if (policy.allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    if (opts.allowUnresolvable) return;
    throw new EgressRefusedError(`cannot resolve host '${host}'`);
  }
  for (const address of addresses) {
    if (isPrivate(address) && !allowlisted(policy, host, port, address)) {
      throw new EgressRefusedError(
        `${host}:${port} resolves to ${address}, a loopback/private address; an operator must allow it with ` +
          `UPSTREAM_ALLOWLIST=${host}:${port} (or UPSTREAM_ALLOW_PRIVATE=1)`,
      );
    }
  }
}

/**
 * The engine addresses a trainer reports (rolloutUrl, prmUrl): whoever holds the run's trainer key decides where
 * the experiment's conversations and reward signal go, so beyond the egress policy they must be inside
 * TRAINER_ENDPOINT_ALLOWLIST (hosts, host:port, CIDRs), or, when it is unset, resolve to private addresses only
 * (the cluster's own network): never an arbitrary public host.
 */
export async function assertTrainerEndpointAllowed(rawUrl: string, source?: EnvSource): Promise<void> {
  // Names that resolve only inside the cluster pass the egress check here; the rule below still applies.
  await assertEgressAllowed(rawUrl, policyFromEnv(source), { allowUnresolvable: true });
  const allowlist = settings("egress", source).TRAINER_ENDPOINT_ALLOWLIST;
  const url = new URL(rawUrl);
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  let addresses: string[] = [];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    /* a cluster-only name: only a host entry of the allow-list can accept it */
  }
  if (allowlist.length) {
    const policy = { allowPrivate: false, allowlist };
    const ok = addresses.length
      ? addresses.every((a) => allowlisted(policy, host, port, a))
      : allowlisted(policy, host, port, "");
    if (!ok)
      throw new EgressRefusedError(
        `${host}:${port} is not in TRAINER_ENDPOINT_ALLOWLIST: an operator must list the cluster's engines there`,
      );
    return;
  }
  if (!addresses.length || addresses.some((a) => !isPrivate(a)))
    throw new EgressRefusedError(
      `${host}:${port} is not a cluster-internal address: trainer endpoints must be private addresses, or listed ` +
        `in TRAINER_ENDPOINT_ALLOWLIST`,
    );
}

/** Where a refused connection says why (node's lookup callback error). */
function refusedLookupError(host: string, address: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new EgressRefusedError(
    `${host} resolves to ${address}, a loopback/private address the egress policy refuses`,
  );
  err.code = "EGRESS_REFUSED";
  return err;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request / net.connect: the address the socket connects to is the one validated (DNS
 * rebinding between a check and the connect cannot swap it). `port` matters for host:port allow-list entries.
 */
export function egressLookup(port: string, policy: () => EgressPolicy = () => policyFromEnv()) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const p = policy();
      const list = addresses as LookupAddress[];
      const host = hostname.toLowerCase();
      const bad = p.allowPrivate
        ? undefined
        : list.find((a) => isPrivate(a.address) && !allowlisted(p, host, port, a.address));
      if (bad) return callback(refusedLookupError(host, bad.address), []);
      if (options.all) return callback(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/** One connection pool per port: `egressLookup`'s host:port allow-list entries need the port. */
const dispatchers = new Map<string, Agent>();

/**
 * The fetch dispatcher whose sockets connect only to addresses the policy allows, checked on the address the
 * socket connects to (the check before the call resolves the name separately, so alone it could be rebound).
 */
export function egressDispatcher(port: string, policy?: () => EgressPolicy): Agent {
  if (policy) return new Agent({ connect: { lookup: egressLookup(port, policy) } });
  let agent = dispatchers.get(port);
  if (!agent) {
    agent = new Agent({ connect: { lookup: egressLookup(port) } });
    dispatchers.set(port, agent);
  }
  return agent;
}

function portOf(url: URL): string {
  return url.port || (url.protocol === "https:" ? "443" : "80");
}

/**
 * fetch for user-configured URLs: the egress policy is checked right before the call and again on the address
 * each connection is made to, and a redirect is never followed (a public URL answering 307 to an internal
 * address would otherwise be an SSRF).
 */
export async function egressFetch(url: string, init: RequestInit = {}): Promise<Response> {
  await assertEgressAllowed(url);
  // Node's fetch is undici's and takes its dispatcher (not in the DOM RequestInit type).
  const dispatcher = egressDispatcher(portOf(new URL(url)));
  const res = await fetch(url, { ...init, redirect: "manual", dispatcher } as RequestInit);
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel().catch(() => {});
    throw new EgressRefusedError(
      `${new URL(url).host} answered a redirect (HTTP ${res.status}): redirects are not followed`,
    );
  }
  return res;
}
