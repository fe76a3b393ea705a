// Fixtures for the judge integration tests: experiments, sessions and turns written with Prisma (as
// the proxy records them), a per-file Redis prefix, a fake PRM router scripted per turn, and polling.
import { randomBytes } from "node:crypto";
import { db, type Prisma } from "../../../server/platform/db/client";
import { ExperimentConfigSchema, type ExperimentConfigInput } from "../../../server/experiments/config";
import type { ChatMessage } from "../../../server/judge/core/schemas";
import type { FakePrmServer, FakeReply } from "../../fakes/prmServer";

export const uniq = (p = "t") => `${p}-${randomBytes(4).toString("hex")}`;

/**
 * Gives this test file its own queue namespace under the run's prefix, so another file's worker never
 * takes its jobs. Must run before anything touches Redis (env() is read lazily and then cached).
 */
export function isolateRedis(name: string): string {
  const prefix = `${process.env.REDIS_PREFIX ?? "test:"}${name}-${randomBytes(3).toString("hex")}:`;
  process.env.REDIS_PREFIX = prefix;
  return prefix;
}

const created: string[] = [];

export async function makeExperiment(config: ExperimentConfigInput): Promise<{ id: string }> {
  const parsed = ExperimentConfigSchema.parse(config);
  const e = await db().experiment.create({
    data: { slug: uniq("judge"), name: "judge test", config: parsed as unknown as Prisma.InputJsonValue },
    select: { id: true },
  });
  created.push(e.id);
  return e;
}

/**
 * Deletes this file's experiments (turns cascade): their fake endpoints are gone, so the sweepers of
 * workers started later in the same test run (browser tests) must not find deliberately unjudged turns.
 */
export async function deleteExperiments(): Promise<void> {
  await db().experiment.deleteMany({ where: { id: { in: created } } });
}

export type TurnSpec = {
  experimentId: string;
  request?: ChatMessage[];
  content: string;
  toolCalls?: unknown[];
  tokenIds?: number[];
  /** The next state; null = none arrived. */
  next?: { role: string; content: string } | null;
  sessionDone?: boolean;
  turnType?: "MAIN" | "SIDE";
  status?: "OK" | "FAILED";
  /** When the next state (or the session's end) arrived; defaults to now. */
  readyAt?: Date;
};

/** One recorded turn in a session of its own (index 0, so its delta is its whole request body). */
export async function makeTurn(spec: TurnSpec): Promise<string> {
  const readyAt = spec.readyAt ?? new Date();
  const session = await db().agentSession.create({
    data: { experimentId: spec.experimentId, externalId: uniq("sess"), done: spec.sessionDone ?? false, doneAt: spec.sessionDone ? readyAt : null },
  });
  const next = spec.next === undefined ? { role: "user", content: "thanks!" } : spec.next;
  const turn = await db().turn.create({
    data: {
      requestId: uniq("req"),
      experimentId: spec.experimentId,
      sessionId: session.id,
      index: 0,
      turnType: spec.turnType ?? "MAIN",
      status: spec.status ?? "OK",
      messagesOffset: 0,
      messagesDelta: (spec.request ?? [{ role: "user", content: "Tell me about Paris." }]) as Prisma.InputJsonValue,
      content: spec.content,
      toolCalls: spec.toolCalls as Prisma.InputJsonValue | undefined,
      tokenIds: spec.tokenIds ?? [],
      nextState: next ? (next as Prisma.InputJsonValue) : undefined,
      nextStateRole: next?.role ?? null,
      nextStateAt: next ? readyAt : null,
    },
  });
  return turn.id;
}

export async function judgmentsOf(turnId: string) {
  return db().judgment.findMany({ where: { turnId }, include: { votes: { orderBy: [{ kind: "asc" }, { index: "asc" }] } } });
}

/** Polls `fn` until it returns a non-null value or the deadline passes. */
export async function waitFor<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== null && value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const boxed = (v: number | string, hint?: string): FakeReply => ({
  text: `Let me think step by step. \\boxed{${v}}${hint === undefined ? "" : `\n[HINT_START]${hint}[HINT_END]`}`,
});

/**
 * Routes the fake PRM's chat calls by the turn tag in the assistant output (`[tag]`) and by prompt
 * (the hint judge's system prompt mentions hindsight). Unscripted calls get a 500.
 */
export class PrmScript {
  private readonly replies = new Map<string, { eval: FakeReply[]; hint: FakeReply[] }>();
  readonly calls = new Map<string, number>();
  /** Answer for tags with no script left (e.g. a bulk of turns judged the same way). */
  fallback: ((kind: "eval" | "hint") => FakeReply) | null = null;

  constructor(fake: FakePrmServer) {
    fake.setChatHandler((body) => {
      const user = body.messages.find((m) => m.role === "user")?.content ?? "";
      const tag = /\[(tag-[a-z0-9-]+)\]/.exec(user)?.[1] ?? "untagged";
      const kind = body.messages[0]?.content.includes("hindsight") ? "hint" : "eval";
      this.calls.set(tag, (this.calls.get(tag) ?? 0) + 1);
      return this.replies.get(tag)?.[kind].shift() ?? this.fallback?.(kind) ?? { status: 500, body: "script exhausted" };
    });
  }

  /** A new tag with its scripted eval and hint replies (each list is served in call order). */
  script(evalReplies: FakeReply[], hintReplies: FakeReply[] = []): string {
    const tag = uniq("tag");
    this.replies.set(tag, { eval: [...evalReplies], hint: [...hintReplies] });
    return tag;
  }

  add(tag: string, evalReplies: FakeReply[], hintReplies: FakeReply[] = []): void {
    const entry = this.replies.get(tag) ?? { eval: [], hint: [] };
    entry.eval.push(...evalReplies);
    entry.hint.push(...hintReplies);
    this.replies.set(tag, entry);
  }
}
