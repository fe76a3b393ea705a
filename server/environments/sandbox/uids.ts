// One uid per live lease, claimed with an exclusive-create file so that several processes (workers, the web
// process, tests) sharing a sandbox root never hand out the same uid. A claim left by a dead process is
// taken over by renaming it away first (only one claimant's rename succeeds), after killing what its uid
// still runs.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { isAlive, killUid } from "./processes";

export class UidPool {
  private readonly dir: string;

  constructor(
    root: string,
    private readonly base: number,
    private readonly count: number,
  ) {
    this.dir = path.join(root, ".uids");
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
  }

  async claim(): Promise<number> {
    // Start at a random offset: concurrent claimants then rarely collide on their first try.
    const start = Math.floor(Math.random() * this.count);
    for (let i = 0; i < this.count; i++) {
      const uid = this.base + ((start + i) % this.count);
      const file = path.join(this.dir, String(uid));
      if (this.tryCreate(file)) return uid;
      if (await this.reclaimStale(uid, file)) {
        if (this.tryCreate(file)) return uid;
      }
    }
    throw new Error(`all ${this.count} sandbox uids are in use`);
  }

  release(uid: number): void {
    rmSync(path.join(this.dir, String(uid)), { force: true });
  }

  private tryCreate(file: string): boolean {
    try {
      writeFileSync(file, String(process.pid), { flag: "wx" });
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw e;
    }
  }

  private async reclaimStale(uid: number, file: string): Promise<boolean> {
    let owner: number;
    try {
      owner = Number(readFileSync(file, "utf8"));
    } catch {
      return true; // released meanwhile
    }
    if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) return false;
    const moved = `${file}.stale-${process.pid}`;
    try {
      renameSync(file, moved);
    } catch {
      return false; // another claimant took it over
    }
    await killUid(uid);
    rmSync(moved, { force: true });
    return true;
  }
}
