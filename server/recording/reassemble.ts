// Reassembles a recorded turn's full request from compact storage (content-addressed system blob + per-lane deltas).
import { db } from "../platform/db/client";
import { assembleMessages } from "./compact";

/**
 * Full request of a turn, reassembled from the content-addressed blobs and the per-turn deltas. Deltas chain
 * within a lane (main or side turns of the session), as the proxy writes them (compact.ts).
 */
export async function reassembleMessages(turn: {
  sessionId: string;
  index: number;
  systemHash: string | null;
  turnType?: "MAIN" | "SIDE";
}): Promise<unknown[]> {
  const turnType =
    turn.turnType ??
    (
      await db().turn.findUnique({
        where: { sessionId_index: { sessionId: turn.sessionId, index: turn.index } },
        select: { turnType: true },
      })
    )?.turnType ??
    "MAIN";
  const [prior, system] = await Promise.all([
    db().turn.findMany({
      where: { sessionId: turn.sessionId, turnType, index: { lte: turn.index } },
      orderBy: { index: "asc" },
      select: { messagesDelta: true, messagesOffset: true },
    }),
    turn.systemHash ? db().blob.findUnique({ where: { hash: turn.systemHash } }) : null,
  ]);
  return assembleMessages(system ? system.content : null, prior);
}
