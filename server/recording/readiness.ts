// When a recorded turn is ready to judge — the one definition the proxy's enqueue sweep, the judge's
// backlog and sweeper (SQL) and the judge job itself (TypeScript) share. A turn is ready when it is a
// successful main turn whose next state arrived or whose session ended; without a next state it is
// judged (as excluded) only once its session has ended, since before that the next state may still
// arrive and a premature judgment would lock the exclusion in.

/** SQL over `turns t JOIN agent_sessions s ON s.id = t."sessionId"`. */
export const READY_TO_JUDGE = `t."turnType" = 'MAIN' AND t.status = 'OK' AND (t."nextStateAt" IS NOT NULL OR s.done)`;

/** SQL: since when a ready turn has been waiting (columns hold UTC wall time). */
export const READY_AT = `COALESCE(t."nextStateAt", s."doneAt", s."lastTurnAt")`;

export type NotReady = "side_turn" | "failed_turn" | "not_ready";

/** The same rule for one loaded turn: null when ready, else why not. */
export function notReadyReason(turn: {
  turnType: string;
  status: string;
  hasNextState: boolean;
  sessionDone: boolean;
}): NotReady | null {
  if (turn.turnType === "SIDE") return "side_turn";
  if (turn.status === "FAILED") return "failed_turn";
  if (!turn.hasNextState && !turn.sessionDone) return "not_ready";
  return null;
}
