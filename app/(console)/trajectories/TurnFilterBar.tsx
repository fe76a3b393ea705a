"use client";
// The trajectory filters (presentational: values in, typed patches out).
import { DebouncedInput, Field, Select } from "../../_ui/Field";
import { ExperimentSelect } from "../_components/ExperimentSelect";
import type { SetTurnFilters, TurnFilters } from "./_hooks/useTurnList";

const toLocal = (d: Date | undefined) =>
  d ? new Date(d.getTime() - new Date().getTimezoneOffset() * 60_000).toISOString().slice(0, 16) : "";
const fromLocal = (local: string) => (local ? new Date(local) : undefined);

export function TurnFilterBar({
  f,
  set,
  runs,
}: {
  f: TurnFilters;
  set: SetTurnFilters;
  runs: readonly (readonly [string, string])[];
}) {
  return (
    <div className="filters" data-testid="turn-filters">
      <ExperimentSelect value={f.experimentId ?? ""} onChange={(v) => set({ experimentId: v, runId: undefined })} />
      <Select
        label="Run"
        value={f.runId}
        onChange={(v) => set({ runId: v })}
        options={[[undefined, "Any run"], ...runs]}
      />
      <DebouncedInput
        label="Session id"
        value={f.sessionId ?? ""}
        onCommit={(v) => set({ sessionId: v })}
        placeholder="ours or the client's"
      />
      <Select
        label="Turn type"
        value={f.turnType}
        onChange={(v) => set({ turnType: v })}
        options={[
          [undefined, "Main and side"],
          ["MAIN", "Main"],
          ["SIDE", "Side"],
        ]}
      />
      <Select
        label="Judged score"
        value={f.score}
        onChange={(v) => set({ score: v })}
        options={[
          [undefined, "Any score"],
          ["1", "+1"],
          ["0", "0"],
          ["-1", "−1"],
          ["unjudged", "Not judged"],
        ]}
      />
      <Select
        label="Vote agreement"
        value={f.agreement}
        onChange={(v) => set({ agreement: v })}
        options={[
          [undefined, "Any"],
          ["unanimous", "Unanimous"],
          ["split", "Split"],
        ]}
      />
      <Select
        label="Relabeled"
        value={f.relabeled}
        onChange={(v) => set({ relabeled: v })}
        options={[
          [undefined, "Any"],
          [true, "Relabeled"],
          [false, "Not relabeled"],
        ]}
      />
      <Select
        label="Disputed"
        value={f.disputed}
        onChange={(v) => set({ disputed: v })}
        options={[
          [undefined, "Any"],
          [true, "Disputed"],
          [false, "Not disputed"],
        ]}
      />
      <Select
        label="Status"
        value={f.status}
        onChange={(v) => set({ status: v })}
        options={[
          [undefined, "Any"],
          ["OK", "OK"],
          ["FAILED", "Failed"],
        ]}
      />
      <DebouncedInput
        label="End user"
        value={f.endUserId ?? ""}
        onCommit={(v) => set({ endUserId: v || undefined })}
        placeholder="X-User-Id"
      />
      <DebouncedInput
        label="Policy version"
        value={f.policyVersion === undefined ? "" : String(f.policyVersion)}
        onCommit={(v) => set({ policyVersion: /^\d+$/.test(v) ? Number(v) : undefined })}
      />
      <Field label="From">
        <input
          aria-label="From"
          type="datetime-local"
          value={toLocal(f.from)}
          onChange={(e) => set({ from: fromLocal(e.target.value) })}
        />
      </Field>
      <Field label="To">
        <input
          aria-label="To"
          type="datetime-local"
          value={toLocal(f.to)}
          onChange={(e) => set({ to: fromLocal(e.target.value) })}
        />
      </Field>
    </div>
  );
}
