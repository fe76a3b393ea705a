// A task set's files, read into memory from a folder or a tar(.gz) archive before anything is parsed, so an
// archive is never extracted to disk: links, devices, absolute paths and `..` are refused by name, and the
// sizes are bounded before they are allocated.
import { gunzipSync } from "node:zlib";
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { unsafePathReason } from "../sandbox/files";
import { taskError, tooLarge } from "./errors";

export interface Entry {
  bytes: Buffer;
  executable: boolean;
}
/** Relative path → file; folders are implied by their files. */
export type Entries = Map<string, Entry>;

export const ENTRY_LIMITS = { files: 5000, totalBytes: 64 * 1024 * 1024 };

function add(entries: Entries, name: string, bytes: Buffer, executable: boolean, source: string): void {
  const p = name.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
  const why = unsafePathReason(p);
  if (why) throw taskError(source, null, `entry ${JSON.stringify(name.slice(0, 120))} ${why}`);
  if (entries.size >= ENTRY_LIMITS.files) throw tooLarge(`${source}: more than ${ENTRY_LIMITS.files} files`);
  entries.set(p, { bytes, executable });
}

function octal(buf: Buffer, start: number, len: number): number {
  // base-256 (GNU) for sizes over 8 GiB: far above our limit anyway.
  if (buf[start] & 0x80) return Number.MAX_SAFE_INTEGER;
  const s = buf
    .toString("latin1", start, start + len)
    .replace(/\0.*$/, "")
    .trim();
  return s ? parseInt(s, 8) : 0;
}

function cstring(buf: Buffer, start: number, len: number): string {
  const end = buf.indexOf(0, start);
  return buf.toString("utf8", start, end === -1 || end > start + len ? start + len : end);
}

/** Parses pax extended-header records ("<len> key=value\n"). */
function pax(data: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let i = 0;
  while (i < data.length) {
    const sp = data.indexOf(0x20, i);
    if (sp === -1) break;
    const len = parseInt(data.toString("latin1", i, sp), 10);
    if (!Number.isFinite(len) || len <= 0) break;
    const rec = data.toString("utf8", sp + 1, i + len - 1);
    const eq = rec.indexOf("=");
    if (eq > 0) out[rec.slice(0, eq)] = rec.slice(eq + 1);
    i += len;
  }
  return out;
}

export function entriesFromArchive(archive: Buffer, source = "archive"): Entries {
  let tar = archive;
  if (archive[0] === 0x1f && archive[1] === 0x8b) {
    try {
      tar = gunzipSync(archive, { maxOutputLength: ENTRY_LIMITS.totalBytes + 1024 * 1024 });
    } catch (e) {
      if (e instanceof RangeError || (e as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE")
        throw tooLarge(`${source}: expands to more than ${ENTRY_LIMITS.totalBytes} bytes`);
      throw taskError(source, null, `is not a valid gzip file (${(e as Error).message})`);
    }
  }
  if (tar.length < 1024 || tar.length % 512 !== 0)
    throw taskError(source, null, "is not a tar archive (its size is not a whole number of 512-byte blocks)");
  const entries: Entries = new Map();
  let total = 0;
  let longName: string | null = null;
  let paxPath: string | null = null;
  let offset = 0;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    if (!header.toString("latin1", 257, 262).startsWith("ustar"))
      throw taskError(source, null, `is not a tar archive (no ustar header at byte ${offset})`);
    const size = octal(header, 124, 12);
    const type = String.fromCharCode(header[156] || 0x30);
    const dataStart = offset + 512;
    if (size > ENTRY_LIMITS.totalBytes || dataStart + size > tar.length)
      throw taskError(source, null, `entry at byte ${offset} is truncated or too large`);
    const data = tar.subarray(dataStart, dataStart + size);
    offset = dataStart + Math.ceil(size / 512) * 512;
    const prefix = cstring(header, 345, 155);
    const name = paxPath ?? longName ?? (prefix ? `${prefix}/${cstring(header, 0, 100)}` : cstring(header, 0, 100));
    if (type === "L") {
      longName = cstring(data, 0, data.length);
      continue;
    }
    if (type === "x") {
      paxPath = pax(data).path ?? null;
      continue;
    }
    if (type === "g") continue;
    longName = null;
    paxPath = null;
    if (type === "5") continue;
    if (type !== "0" && type !== "7")
      throw taskError(
        source,
        null,
        `entry ${JSON.stringify(name.slice(0, 120))} is a ${type === "1" ? "hard link" : type === "2" ? "symbolic link" : "special file"}: only files and folders are accepted`,
      );
    total += size;
    if (total > ENTRY_LIMITS.totalBytes)
      throw tooLarge(`${source}: more than ${ENTRY_LIMITS.totalBytes} bytes of files`);
    add(entries, name, Buffer.from(data), (octal(header, 100, 8) & 0o111) !== 0, source);
  }
  return entries;
}

export function entriesFromFolder(dir: string): Entries {
  const entries: Entries = new Map();
  let total = 0;
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(dir, rel)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(path.join(dir, r));
      if (st.isDirectory()) walk(r);
      else if (st.isFile()) {
        total += st.size;
        if (total > ENTRY_LIMITS.totalBytes)
          throw tooLarge(`${dir}: more than ${ENTRY_LIMITS.totalBytes} bytes of files`);
        add(entries, r, readFileSync(path.join(dir, r)), (st.mode & 0o111) !== 0, dir);
      } else throw taskError(r, null, "is a link or special file: only files and folders are accepted");
    }
  };
  walk("");
  return entries;
}
