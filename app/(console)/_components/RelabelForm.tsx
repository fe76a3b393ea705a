"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { useTRPC } from "../../_lib/trpc";
import { messageOf } from "../../_lib/errors";
import { Cheatsheet, useLabelKeys } from "./useLabelKeys";
import { fmtScore } from "./format";

/** Reviewer relabel of one turn, keyboard-first (1 / 0 / -, h, x, Ctrl/Cmd+Enter, ?). */
export function RelabelForm({
  turnId,
  initial,
}: {
  turnId: string;
  initial: { value: number | null; hint: string | null };
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [value, setValue] = useState<1 | 0 | -1 | null>(
    initial.value === null ? null : initial.value > 0 ? 1 : initial.value < 0 ? -1 : 0,
  );
  const [hint, setHint] = useState(initial.hint ?? "");
  const [exclude, setExclude] = useState(false);
  const [comment, setComment] = useState("");
  const [help, setHelp] = useState(false);
  const [msg, setMsg] = useState<{ ok: boolean; text: string } | null>(null);
  const hintRef = useRef<HTMLTextAreaElement>(null);
  const create = useMutation(trpc.labels.create.mutationOptions());
  async function submit() {
    if (value === null) return setMsg({ ok: false, text: "Pick a label first (1, 0 or -)." });
    try {
      // Unchecked leaves exclusion to the dispatch (sending false would lift it, e.g. train a 0 at reward 0).
      await create.mutateAsync({
        turnId,
        value,
        hint: hint.trim() || undefined,
        exclude: exclude || undefined,
        comment: comment.trim() || undefined,
      });
      setMsg({ ok: true, text: `Saved: ${fmtScore(value)}${exclude ? ", excluded" : ""}` });
      await qc.invalidateQueries({ queryKey: trpc.turns.pathKey() });
      await qc.invalidateQueries({ queryKey: trpc.sessions.pathKey() });
    } catch (err) {
      setMsg({ ok: false, text: messageOf(err) });
    }
  }
  useLabelKeys({
    setValue,
    focusHint: () => hintRef.current?.focus(),
    toggleExclude: () => setExclude((x) => !x),
    submit: () => void submit(),
    help: () => setHelp((h) => !h),
    escape: () => setHelp(false),
  });
  return (
    <div className="card" data-testid="relabel-form">
      <h3 style={{ marginTop: 0 }}>
        Relabel{" "}
        <span className="muted" style={{ textTransform: "none" }}>
          (press <kbd>?</kbd> for keys)
        </span>
      </h3>
      <div className="choices" role="radiogroup" aria-label="Label">
        {([1, 0, -1] as const).map((v) => (
          <button
            key={v}
            type="button"
            role="radio"
            aria-checked={value === v}
            className={value === v ? "on" : undefined}
            onClick={() => setValue(v)}
          >
            {fmtScore(v)} <kbd>{v === 1 ? "1" : v === 0 ? "0" : "-"}</kbd>
          </button>
        ))}
      </div>
      <label className="field">
        <span>
          Hint for OPD <kbd>h</kbd>
        </span>
        <textarea
          ref={hintRef}
          aria-label="Hint"
          rows={3}
          value={hint}
          onChange={(e) => setHint(e.target.value)}
          placeholder="What the assistant should have done (1–3 sentences)"
        />
      </label>
      <label style={{ display: "flex", gap: 6, alignItems: "center", margin: "8px 0" }}>
        <input type="checkbox" checked={exclude} onChange={(e) => setExclude(e.target.checked)} /> Exclude from training{" "}
        <kbd>x</kbd>
      </label>
      <label className="field">
        <span>Comment</span>
        <input aria-label="Comment" value={comment} onChange={(e) => setComment(e.target.value)} />
      </label>
      <div className="toolbar" style={{ marginTop: 10, marginBottom: 0 }}>
        <button className="primary" disabled={create.isPending} onClick={() => void submit()}>
          Save label <kbd>Ctrl+Enter</kbd>
        </button>
        {msg && (
          <span className={msg.ok ? "muted" : "field-error"} role="status">
            {msg.text}
          </span>
        )}
      </div>
      {help && <Cheatsheet onClose={() => setHelp(false)} />}
    </div>
  );
}
