import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/** SECRET_KEY from the environment, else one generated on first start and kept in .data/secret.key (0600). */
export function ensureSecretKey(dataDir: string): string {
  if (process.env.SECRET_KEY) return process.env.SECRET_KEY;
  const file = path.resolve(dataDir, "secret.key");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32).toString("base64url");
  writeFileSync(file, key + "\n", { mode: 0o600 });
  return key;
}
