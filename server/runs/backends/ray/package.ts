// The per-launch Ray package: a zip uploaded to the Ray head (GCS) and used as the job's runtime_env
// working_dir. It carries the run's write key and the slime argument list for the preflight, so the key never
// appears in runtime_env.env_vars (which the dashboard shows to anyone who can open it; Ray serves a package's
// existence, not its content). Ray unpacks a zip whose top level holds several files as it is
// (ray python/ray/_private/runtime_env/packaging.py `unzip_package`), and every worker of the job, the
// RolloutManager actor that runs our rollout function included, starts in that directory.
import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";

/** File names inside the package (relative to the working directory of the job's workers). */
export const KEY_FILE = "openclaw_run_key";
export const ARGS_FILE = "slime_args.json";

/** A zip archive of `files`, stored (no compression): small, and readable by Python's zipfile. */
export function storedZip(files: Record<string, Buffer>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, data] of Object.entries(files)) {
    const nameBuf = Buffer.from(name, "utf8");
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBuf.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x031e, 4); // made by: Unix
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBuf.length, 28);
    central.writeUInt32LE((0o100600 << 16) >>> 0, 38); // -rw------- on extraction
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBuf, data);
    centrals.push(central, nameBuf);
    offset += local.length + nameBuf.length + data.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

/** The package of a launch and its GCS URI (content-addressed, as Ray names its own packages). */
export function runPackage(apiKey: string, slimeArgs: string[]): { uri: string; zip: Buffer } {
  const zip = storedZip({
    [KEY_FILE]: Buffer.from(apiKey, "utf8"),
    [ARGS_FILE]: Buffer.from(JSON.stringify(slimeArgs), "utf8"),
  });
  return { uri: `gcs://_ray_pkg_${createHash("sha256").update(zip).digest("hex").slice(0, 16)}.zip`, zip };
}
