// Eval sets in Postgres. A set's items never change in place: every upload, "add to eval set" or
// regeneration writes a new EvalSetVersion (under the set's row lock), so an evaluation that names a set
// version always means the same prompts.
import { db, type Prisma } from "../platform/db/client";
import { badRequest, notFound } from "../platform/errors";
import { reassembleMessages } from "../recording/reassemble";
import { getPersona, heldOutQuestionsFor, questionsFor } from "../simulation/personas";
import { MAX_ITEMS, type EvalItemData } from "./jsonl";

type Tx = Prisma.TransactionClient;

export interface WriteSetInput {
  experimentId: string;
  name: string;
  description?: string;
  source: "upload" | "turns" | "persona";
  items: EvalItemData[];
  mode: "replace" | "append";
}

/** Write the next version of a set (creating the set on first use); returns the new version's id and number. */
export async function writeSetVersion(input: WriteSetInput, client: Tx | null = null) {
  const body = async (tx: Tx) => {
    await tx.evalSet.upsert({
      where: { experimentId_name: { experimentId: input.experimentId, name: input.name } },
      create: { experimentId: input.experimentId, name: input.name, description: input.description ?? "" },
      update: input.description !== undefined ? { description: input.description } : {},
    });
    const [set] = await tx.$queryRaw<{ id: string; latestVersion: number }[]>`
      SELECT id, "latestVersion" FROM eval_sets WHERE "experimentId" = ${input.experimentId} AND name = ${input.name} FOR UPDATE`;
    let items = input.items;
    if (input.mode === "append" && set!.latestVersion > 0) {
      const prev = await tx.evalItem.findMany({
        where: { setVersion: { setId: set!.id, version: set!.latestVersion } },
        orderBy: { index: "asc" },
      });
      const taken = new Set(prev.map((p) => p.key));
      const dup = items.find((i) => taken.has(i.key));
      if (dup)
        throw badRequest(`Invalid eval set: key "${dup.key}" is already in "${input.name}" v${set!.latestVersion}`);
      items = [...prev.map((p) => ({ ...p, messages: p.messages as Record<string, unknown>[] })), ...items];
    }
    if (items.length > MAX_ITEMS) throw badRequest(`Invalid eval set: ${items.length} items, at most ${MAX_ITEMS}`);
    const version = set!.latestVersion + 1;
    const sv = await tx.evalSetVersion.create({
      data: { setId: set!.id, version, source: input.source, itemCount: items.length },
    });
    await tx.evalItem.createMany({
      data: items.map((it, index) => ({
        setVersionId: sv.id,
        index,
        key: it.key,
        messages: it.messages as Prisma.InputJsonValue,
        reference: it.reference,
        rubric: it.rubric,
        persona: it.persona,
        sourceTurnId: it.sourceTurnId,
      })),
    });
    await tx.evalSet.update({ where: { id: set!.id }, data: { latestVersion: version } });
    return { setId: set!.id, setVersionId: sv.id, version, items: items.length };
  };
  return client ? body(client) : db().$transaction(body);
}

/**
 * The persona eval set: every held-out question of each persona (or with "asked", every question its simulated users
 * ask), asked as a conversation's first message.
 */
export function personaItems(
  personaIds: readonly string[],
  questions: "heldOut" | "asked" = "heldOut",
): EvalItemData[] {
  const of = questions === "asked" ? questionsFor : heldOutQuestionsFor;
  return personaIds.flatMap((id) =>
    of(getPersona(id)).map((q) => ({
      key: `${id}/${q.id}`,
      messages: [{ role: "user", content: q.text }],
      reference: null,
      rubric: null,
      persona: id,
      sourceTurnId: null,
    })),
  );
}

/** Items from recorded turns: each turn's full request is the prefix; optionally its reply the reference. */
export async function itemsFromTurns(
  experimentId: string,
  turnIds: readonly string[],
  opts: { rubric?: string; useReplyAsReference: boolean },
): Promise<EvalItemData[]> {
  const turns = await db().turn.findMany({
    where: { id: { in: [...turnIds] } },
    select: {
      id: true,
      experimentId: true,
      sessionId: true,
      index: true,
      systemHash: true,
      turnType: true,
      content: true,
      session: { select: { persona: true } },
    },
  });
  const byId = new Map(turns.map((t) => [t.id, t]));
  const items: EvalItemData[] = [];
  for (const id of new Set(turnIds)) {
    const t = byId.get(id);
    if (!t || t.experimentId !== experimentId) throw notFound("Turn", id);
    const messages = (await reassembleMessages(t)) as Record<string, unknown>[];
    if (!messages.length) throw badRequest(`Turn '${id}' has no recorded request to use as a prompt`);
    items.push({
      key: `turn/${t.id}`,
      messages,
      reference: opts.useReplyAsReference ? (t.content ?? null) : null,
      rubric: opts.rubric ?? null,
      persona: t.session.persona,
      sourceTurnId: t.id,
    });
  }
  return items;
}

/** The set version an experiment evaluates on: the named set's (or the first set's) latest version. */
export async function currentSetVersion(experimentId: string, name: string | undefined) {
  const set = await db().evalSet.findFirst({
    where: { experimentId, ...(name ? { name } : {}), latestVersion: { gt: 0 } },
    orderBy: { createdAt: "asc" },
  });
  if (!set) return null;
  const sv = await db().evalSetVersion.findUniqueOrThrow({
    where: { setId_version: { setId: set.id, version: set.latestVersion } },
  });
  return { set, setVersion: sv };
}
