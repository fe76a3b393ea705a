// Fixtures for the judge integration tests: a turn's stored judgments and a fake PRM router scripted per
// turn (experiments, turns, Redis isolation and polling come from tests/helpers).
import { db } from "../../../server/platform/db/client";
import type { FakePrmServer, FakeReply } from "../../fakes/prmServer";
import { uniq } from "../../helpers/fixtures";

export async function judgmentsOf(turnId: string) {
  return db().judgment.findMany({
    where: { turnId },
    include: { votes: { orderBy: [{ kind: "asc" }, { index: "asc" }] } },
  });
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
      return (
        this.replies.get(tag)?.[kind].shift() ?? this.fallback?.(kind) ?? { status: 500, body: "script exhausted" }
      );
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
