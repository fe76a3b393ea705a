// Files that go into a sandbox (a task's workspace, its tests, its solution). Paths come from untrusted task
// archives, so each one is checked for what it could do once joined to a host folder: relative, normalised,
// no `..`, no empty or dot segments, no control characters.
import { z } from "zod";

const MAX_PATH = 255;
const SEGMENT = /^[^\u0000-\u001f/\\]+$/;

/** Why `p` is not a safe relative path, or null when it is. */
export function unsafePathReason(p: string): string | null {
  if (p.length === 0) return "is empty";
  if (p.length > MAX_PATH) return `is longer than ${MAX_PATH} characters`;
  if (p.startsWith("/")) return "is absolute";
  const segments = p.split("/");
  for (const s of segments) {
    if (s === "" || s === ".") return "has an empty or '.' segment";
    if (s === "..") return "leaves its folder ('..')";
    if (!SEGMENT.test(s)) return "has a control character or backslash";
  }
  return null;
}

export const sandboxPathSchema = z.string().superRefine((p, ctx) => {
  const why = unsafePathReason(p);
  if (why) ctx.addIssue({ code: "custom", message: `path ${JSON.stringify(p.slice(0, 80))} ${why}` });
});

export const sandboxFileSchema = z.object({
  path: sandboxPathSchema,
  /** utf8 text, or base64 for anything else. */
  content: z.string(),
  encoding: z.enum(["utf8", "base64"]).default("utf8"),
  executable: z.boolean().default(false),
});
export type SandboxFile = z.output<typeof sandboxFileSchema>;

export function fileBytes(f: SandboxFile): Buffer {
  return Buffer.from(f.content, f.encoding);
}

export function textFile(path: string, content: string, executable = false): SandboxFile {
  return { path, content, encoding: "utf8", executable };
}

/** A file from raw bytes: utf8 when they round-trip, base64 otherwise. */
export function bytesFile(path: string, bytes: Buffer, executable = false): SandboxFile {
  const text = bytes.toString("utf8");
  return Buffer.from(text, "utf8").equals(bytes)
    ? { path, content: text, encoding: "utf8", executable }
    : { path, content: bytes.toString("base64"), encoding: "base64", executable };
}
