// The one list of run statuses. The Prisma enum (prisma/schema.prisma `RunStatus`) is the source; this module
// only says which of them are live (the run holds its experiment: one at a time, its trainer may lease and
// report, its engines serve) and derives the terminal ones from the rest, so a status added to the enum is
// terminal until it is listed here as live. It sits beside the enum rather than in runs/ because every layer
// reads it (the judge worker, the proxy, the console), and runs/ depends on some of them; it imports nothing
// but the generated enum, so the console's client components can use it too.
import { RunStatus } from "./generated/enums";

export { RunStatus };

export const RUN_STATUSES: readonly RunStatus[] = Object.values(RunStatus);

/** Mutable type only because Prisma's `in` filters take `RunStatus[]`; never modified. */
export const LIVE_RUN_STATUSES: RunStatus[] = [RunStatus.PENDING, RunStatus.RUNNING, RunStatus.PAUSED];

/** Live and past launch: the trainer has started (the embedded loop trains, steps may commit, the fleet shows it). */
export const STARTED_RUN_STATUSES: RunStatus[] = [RunStatus.RUNNING, RunStatus.PAUSED];

export const TERMINAL_RUN_STATUSES: RunStatus[] = RUN_STATUSES.filter((s) => !LIVE_RUN_STATUSES.includes(s));

export const isLiveRunStatus = (status: string): boolean => (LIVE_RUN_STATUSES as string[]).includes(status);
