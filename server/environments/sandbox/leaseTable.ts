// The leases a local provider (local-bwrap, docker) holds in this process: lookup that names a missing lease,
// copies of their state for callers, idle ones for the reaper, and one operation at a time per lease (a reset and
// a command on the same lease never interleave; a closed lease takes no more).
import { LeaseError, type LeaseInfo } from "./provider";

export interface QueuedLease {
  info: LeaseInfo;
  /** the lease's last queued operation; the next one starts after it */
  queue: Promise<unknown>;
}

/** A copy of a lease's state for callers: they must not mutate the provider's own. */
export function snapshotLease(lease: QueuedLease): LeaseInfo {
  return { ...lease.info, commands: [...lease.info.commands] };
}

export class LeaseTable<L extends QueuedLease> extends Map<string, L> {
  require(id: string): L {
    const lease = this.get(id);
    if (!lease) throw new LeaseError("unknown_lease", `no lease ${id}`);
    return lease;
  }

  /** A caller's heartbeat: the lease counts as used now (the reaper leaves it). */
  heartbeat(id: string): LeaseInfo {
    const lease = this.require(id);
    lease.info.lastUsedAt = new Date().toISOString();
    return snapshotLease(lease);
  }

  snapshot(id: string): LeaseInfo {
    return snapshotLease(this.require(id));
  }

  snapshots(): LeaseInfo[] {
    return [...this.values()].map(snapshotLease);
  }

  idle(idleMs: number, now: number): L[] {
    return [...this.values()].filter((l) => now - Date.parse(l.info.lastUsedAt) > idleMs);
  }

  /**
   * Closes a lease once, for both local providers: marked closed first (no new operation starts), `stop` ends
   * what may still run so the lease's queue frees, then `cleanup` removes what is left, and the lease is gone.
   * A second close, or one of an unknown lease, does nothing.
   */
  async close(id: string, stop: (lease: L) => unknown, cleanup?: (lease: L) => Promise<void> | void): Promise<void> {
    const lease = this.get(id);
    if (!lease || lease.info.state === "closed") return;
    lease.info.state = "closed";
    await stop(lease);
    await lease.queue.catch(() => undefined);
    await cleanup?.(lease);
    this.delete(id);
  }

  /** Closes the leases unused for longer than `idleMs` (upstream pool_server's idle reaping); their ids. */
  async reapIdle(idleMs: number, now: number, close: (id: string) => Promise<void>): Promise<string[]> {
    const idle = this.idle(idleMs, now);
    for (const l of idle) await close(l.info.id);
    return idle.map((l) => l.info.id);
  }

  async serial<T>(leaseId: string, op: (lease: L) => Promise<T>): Promise<T> {
    const lease = this.require(leaseId);
    if (lease.info.state === "closed") throw new LeaseError("bad_state", `lease ${leaseId} is closed`);
    const next = lease.queue.then(() => {
      if (lease.info.state === "closed") throw new LeaseError("bad_state", `lease ${leaseId} is closed`);
      lease.info.lastUsedAt = new Date().toISOString();
      return op(lease);
    });
    lease.queue = next.catch(() => undefined);
    return next;
  }
}
