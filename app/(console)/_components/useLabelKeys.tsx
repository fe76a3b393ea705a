"use client";
import { useEffect, useRef, type KeyboardEvent as ReactKeyboardEvent } from "react";

export interface LabelKeyHandlers {
  setValue: (v: 1 | 0 | -1) => void;
  focusHint: () => void;
  toggleExclude: () => void;
  submit: () => void;
  next?: () => void;
  previous?: () => void;
  accept?: () => void;
  reject?: () => void;
  help?: () => void;
  escape?: () => void;
}

const typing = (t: EventTarget | null) =>
  t instanceof HTMLElement &&
  (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable);

/**
 * Keyboard-first labelling (as Langfuse / Label Studio): 1 / 0 / - set +1 / 0 / −1, h edits the hint, x toggles
 * exclusion, j / k move, a accepts, r rejects, ? shows the cheat sheet, Ctrl/Cmd+Enter submits (even while typing
 * the hint). Single keys are ignored while a text field has focus, Escape leaves it.
 */
export function useLabelKeys(handlers: LabelKeyHandlers, enabled = true): void {
  const ref = useRef(handlers);
  ref.current = handlers;
  useEffect(() => {
    if (!enabled) return;
    const onKey = (e: KeyboardEvent) => {
      const h = ref.current;
      if ((e.ctrlKey || e.metaKey) && e.key === "Enter") {
        if (e.target instanceof Element && e.target.closest('[aria-modal="true"]')) return;
        e.preventDefault();
        h.submit();
        return;
      }
      if (e.key === "Escape") {
        if (e.target instanceof HTMLElement && typing(e.target)) e.target.blur();
        h.escape?.();
        return;
      }
      if (typing(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      // The cheat sheet is modal: behind it, the single keys must not label the turn.
      if (e.target instanceof Element && e.target.closest('[aria-modal="true"]') && e.key !== "?") return;
      const act: Record<string, (() => void) | undefined> = {
        "1": () => h.setValue(1),
        "0": () => h.setValue(0),
        "-": () => h.setValue(-1),
        h: h.focusHint,
        x: h.toggleExclude,
        j: h.next,
        k: h.previous,
        a: h.accept,
        r: h.reject,
        "?": h.help,
      };
      const fn = act[e.key];
      if (fn) {
        e.preventDefault();
        fn();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [enabled]);
}

export const CHEATSHEET: [string, string][] = [
  ["1", "label +1 (good)"],
  ["0", "label 0 (ambiguous: excluded)"],
  ["-", "label −1 (bad)"],
  ["h", "edit the hint"],
  ["x", "toggle exclude from training"],
  ["a", "accept the current label"],
  ["r", "reject (exclude from training)"],
  ["Ctrl/⌘ + Enter", "submit (fix & accept)"],
  ["j / k", "next / previous item"],
  ["Esc", "leave the text field"],
  ["?", "this cheat sheet"],
];

/**
 * The shortcuts dialog: modal (aria-modal), focus moves to its Close button on open, Tab and Shift+Tab stay
 * inside it, and focus returns to where it was (the "Shortcuts" button, or the page) when it closes.
 */
export function Cheatsheet({ onClose }: { onClose: () => void }) {
  const box = useRef<HTMLDivElement>(null);
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    close.current?.focus();
    return () => before?.focus();
  }, []);
  const trap = (e: ReactKeyboardEvent<HTMLDivElement>) => {
    if (e.key !== "Tab") return;
    const focusable = [...(box.current?.querySelectorAll<HTMLElement>("button, [href], [tabindex]") ?? [])].filter(
      (el) => el.tabIndex >= 0,
    );
    const first = focusable[0];
    const last = focusable.at(-1);
    if (!first || !last) return e.preventDefault();
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    } else if (!box.current?.contains(document.activeElement)) {
      e.preventDefault();
      first.focus();
    }
  };
  return (
    <div className="cheatsheet" onClick={onClose}>
      <div
        ref={box}
        className="card"
        role="dialog"
        aria-modal="true"
        aria-labelledby="cheatsheet-title"
        onClick={(e) => e.stopPropagation()}
        onKeyDown={trap}
      >
        <h3 id="cheatsheet-title" className="card-title">
          Keyboard shortcuts
        </h3>
        <table>
          <tbody>
            {CHEATSHEET.map(([k, what]) => (
              <tr key={k}>
                <td>
                  <kbd>{k}</kbd>
                </td>
                <td>{what}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <button ref={close} style={{ marginTop: 10 }} onClick={onClose}>
          Close
        </button>
      </div>
    </div>
  );
}
