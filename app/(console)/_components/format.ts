// Small display helpers shared by the dashboard pages.
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "../../../server/gateway/trpc/root";

export type RouterOutputs = inferRouterOutputs<AppRouter>;
export type AnnotatedTurn = RouterOutputs["sessions"]["conversation"]["turns"][number];
export type TurnDetail = RouterOutputs["turns"]["get"];
export type TrainingUse = NonNullable<AnnotatedTurn["training"]>;

export const fmtScore = (v: number | null | undefined): string =>
  v === null || v === undefined ? "—" : v > 0 ? `+${v}` : v < 0 ? `−${Math.abs(v)}` : "0";
export const scoreClass = (v: number | null | undefined): string =>
  v === null || v === undefined ? "" : v > 0 ? "pos" : v < 0 ? "neg" : "zero";

/** tRPC sends dates as ISO strings (no transformer); accept either. */
export const fmtTime = (d: Date | string | null | undefined): string => (d ? new Date(d).toLocaleString() : "—");

export function trainingText(t: TrainingUse | null | undefined): string {
  if (!t) return "unknown";
  const who =
    t.source === "REVIEWER"
      ? "reviewer"
      : t.source === "USER"
        ? "user feedback"
        : t.source === "JUDGE"
          ? "judge"
          : "nobody";
  if (t.excluded)
    return `excluded (${(t.excludeReason ?? "").replace(/_/g, " ")})${t.value !== null ? ` · label ${fmtScore(t.value)} from ${who}` : ""}`;
  const kind = t.kind === "BOTH" ? "RL + OPD" : (t.kind ?? "—");
  return `${kind}, reward ${fmtScore(t.reward)} (label from ${who})${t.needsTeacherRescore ? " · reviewer hint awaits teacher scoring" : ""}`;
}
