"use client";
import { useRef, useState } from "react";
import { useTRPC } from "../../_lib/trpc";
import { ErrorBanner } from "../../_ui/ErrorBanner";
import { LabelChoice, type Vote } from "../../_ui/LabelChoice";
import { useAction } from "../../_ui/useAction";
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
  const [value, setValue] = useState<Vote | null>(
    initial.value === null ? null : initial.value > 0 ? 1 : initial.value < 0 ? -1 : 0,
  );
  const [hint, setHint] = useState(initial.hint ?? "");
  const [exclude, setExclude] = useState(false);
  const [comment, setComment] = useState("");
  const [help, setHelp] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const hintRef = useRef<HTMLTextAreaElement>(null);
  const create = useAction(trpc.labels.create.mutationOptions(), {
    invalidate: [trpc.turns.pathKey(), trpc.sessions.pathKey()],
  });
  async function submit() {
    setSaved(null);
    if (value === null) return create.fail("Pick a label first (1, 0 or -).");
    // Unchecked leaves exclusion to the dispatch (sending false would lift it, e.g. train a 0 at reward 0).
    const r = await create.run({
      turnId,
      value,
      hint: hint.trim() || undefined,
      exclude: exclude || undefined,
      comment: comment.trim() || undefined,
    });
    if (r.ok) setSaved(`Saved: ${fmtScore(value)}${exclude ? ", excluded" : ""}`);
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
      <LabelChoice value={value} onChange={setValue} />
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
      <label className="check-row">
        <input type="checkbox" checked={exclude} onChange={(e) => setExclude(e.target.checked)} /> Exclude from training{" "}
        <kbd>x</kbd>
      </label>
      <label className="field">
        <span>Comment</span>
        <input aria-label="Comment" value={comment} onChange={(e) => setComment(e.target.value)} />
      </label>
      <div className="toolbar tight">
        <button className="primary" disabled={create.pending} onClick={() => void submit()}>
          Save label <kbd>Ctrl+Enter</kbd>
        </button>
        {saved && (
          <span className="muted" role="status">
            {saved}
          </span>
        )}
      </div>
      <ErrorBanner error={create.error} />
      {help && <Cheatsheet onClose={() => setHelp(false)} />}
    </div>
  );
}
