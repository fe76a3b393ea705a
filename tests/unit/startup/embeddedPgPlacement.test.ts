// Where the embedded Postgres keeps its cluster and binaries when it runs as a user other than root (as it
// must when `npm start` runs as root), and the clear errors for what cannot work. The owner here is uid/gid
// 65534 ("nobody"), whose access is checked with the same credentials the real server gets; the full start
// as the postgres user is in tests/integration/startupAsRoot.test.ts.
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { placeForOwner } from "../../../scripts/lib/embedded-pg";

const skipReason =
  process.getuid?.() === 0 ? null : "needs root (it places files for, and checks access as, another user)";
if (skipReason) console.log(`[embeddedPgPlacement.test] skipped: ${skipReason}`);

const owner = { uid: 65534, gid: 65534 };
const open = mkdtempSync(path.join(tmpdir(), "ocrl-place-open-"));
const locked = mkdtempSync(path.join(tmpdir(), "ocrl-place-locked-")); // mode 700: nobody cannot enter it
chmodSync(open, 0o755);
afterAll(() => [open, locked].forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A stand-in for the platform package's native/ folder (bin/, lib/) at `dir`, with the given modes. */
function native(dir: string, exe: number, lib: number) {
  mkdirSync(path.join(dir, "bin"), { recursive: true });
  mkdirSync(path.join(dir, "lib"), { recursive: true });
  writeFileSync(path.join(dir, "bin", "postgres"), "#!/bin/sh\n");
  writeFileSync(path.join(dir, "lib", "libpq.so.5"), "");
  chmodSync(path.join(dir, "bin", "postgres"), exe);
  chmodSync(path.join(dir, "lib", "libpq.so.5"), lib);
  return { dir, version: "0.0.0-test" };
}
const mode = (p: string) => statSync(p).mode & 0o777;

describe.skipIf(!!skipReason)("placeForOwner", () => {
  it("keeps the cluster in DATA_DIR/pg and the binaries where they are when the owner can reach both", () => {
    const dataDir = path.join(open, "data");
    const bins = native(path.join(open, "native"), 0o755, 0o644);
    const placed = placeForOwner(dataDir, bins, owner, path.join(open, "home"));
    expect(placed).toEqual({ clusterDir: path.join(dataDir, "pg"), binDir: path.join(bins.dir, "bin") });
    expect(statSync(placed.clusterDir).uid).toBe(owner.uid);
    expect(mode(placed.clusterDir)).toBe(0o700);
    expect(existsSync(path.join(open, "home"))).toBe(false);
  });

  it("in a folder the owner cannot enter: creates the home, a cluster there linked from DATA_DIR/pg, and a readable copy of the binaries; the next start finds the same", () => {
    const dataDir = path.join(locked, "data");
    const bins = native(path.join(locked, "native"), 0o700, 0o600);
    const home = path.join(open, "pghome");
    const placed = placeForOwner(dataDir, bins, owner, home);

    expect(mode(home)).toBe(0o755);
    expect(path.dirname(placed.clusterDir)).toBe(home);
    expect(path.basename(placed.clusterDir)).toMatch(/^cluster-[0-9a-f]{12}$/);
    expect(lstatSync(path.join(dataDir, "pg")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(path.join(dataDir, "pg"))).toBe(placed.clusterDir);
    expect(readFileSync(`${placed.clusterDir}.source`, "utf8")).toBe(`${dataDir}\n`);
    expect(statSync(placed.clusterDir).uid).toBe(owner.uid);
    expect(mode(placed.clusterDir)).toBe(0o700);
    expect(placed.binDir).toBe(path.join(home, "postgres-0.0.0-test", "bin"));
    expect(mode(path.join(placed.binDir, "postgres"))).toBe(0o755);
    expect(mode(path.join(home, "postgres-0.0.0-test", "lib", "libpq.so.5"))).toBe(0o644);

    expect(placeForOwner(dataDir, bins, owner, home)).toEqual(placed);
    expect(readdirSync(home).sort()).toEqual([
      path.basename(placed.clusterDir),
      `${path.basename(placed.clusterDir)}.source`,
      "postgres-0.0.0-test",
    ]);
  });

  it("refuses to start a second, empty cluster next to an existing one the owner cannot reach, and says how to fix it", () => {
    const dataDir = path.join(locked, "old");
    mkdirSync(path.join(dataDir, "pg"), { recursive: true });
    writeFileSync(path.join(dataDir, "pg", "PG_VERSION"), "18\n");
    const bins = native(path.join(open, "native-old"), 0o755, 0o644);
    expect(() => placeForOwner(dataDir, bins, owner, path.join(open, "home-old"))).toThrow(
      `The embedded PostgreSQL runs as the 'postgres' user, which cannot enter ${locked} (mode 700), and this project's database is in ${dataDir}/pg. Run 'chmod o+x ${locked}'`,
    );
    expect(existsSync(path.join(open, "home-old"))).toBe(false);
  });

  it("names the directory and the fix when the owner cannot enter EMBEDDED_PG_HOME either", () => {
    const bins = native(path.join(open, "native-home"), 0o755, 0o644);
    const home = path.join(locked, "home");
    expect(() => placeForOwner(path.join(locked, "fresh"), bins, owner, home)).toThrow(
      `which cannot enter ${locked} (mode 700), so it cannot use EMBEDDED_PG_HOME=${home}. Set EMBEDDED_PG_HOME to a directory under a world-traversable path, or set DATABASE_URL.`,
    );
  });
});
