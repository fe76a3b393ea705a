// The one logger of server code and workers: a line per call on stdout (info, debug) or stderr (warn, error),
// prefixed with the time, the level and a scope, and dropped below LOG_LEVEL (env.ts, section `log`).
import { settings } from "./env";

export type LogLevel = "debug" | "info" | "warn" | "error";

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export interface Logger {
  debug(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
}

let threshold: number | undefined;

/** A logger whose lines carry `[scope]`. The level is read once per process. */
export function logger(scope: string): Logger {
  const emit = (level: LogLevel, args: unknown[]) => {
    threshold ??= RANK[settings("log").LOG_LEVEL];
    if (RANK[level] < threshold) return;
    const line = [`${new Date().toISOString()} ${level.toUpperCase()} [${scope}]`, ...args];
    if (level === "warn" || level === "error") console.error(...line);
    else console.log(...line);
  };
  return {
    debug: (...args) => emit("debug", args),
    info: (...args) => emit("info", args),
    warn: (...args) => emit("warn", args),
    error: (...args) => emit("error", args),
  };
}
