"use client";
// The +1 / 0 / −1 label control of the relabel form and the review page: one radiogroup with a roving tabindex
// (Tab reaches the checked choice, arrows move and choose), the WAI-ARIA radio group pattern.
import { useRef, type KeyboardEvent } from "react";

export type Vote = 1 | 0 | -1;
const VOTES: readonly Vote[] = [1, 0, -1];
const KEY: Record<Vote, string> = { 1: "1", 0: "0", [-1]: "-" };
const TEXT: Record<Vote, string> = { 1: "+1", 0: "0", [-1]: "−1" };

export function LabelChoice({
  value,
  onChange,
  disabled,
  label = "Label",
}: {
  value: Vote | null;
  onChange: (v: Vote) => void;
  disabled?: boolean;
  label?: string;
}) {
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  const at = value === null ? -1 : VOTES.indexOf(value);
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const step = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 }[e.key];
    if (step === undefined || disabled) return;
    e.preventDefault();
    const from = refs.current.findIndex((b) => b === document.activeElement);
    const next = ((((from === -1 ? Math.max(at, 0) : from) + step) % VOTES.length) + VOTES.length) % VOTES.length;
    onChange(VOTES[next]!);
    refs.current[next]?.focus();
  };
  return (
    <div
      className="choices"
      role="radiogroup"
      aria-label={label}
      aria-disabled={disabled || undefined}
      onKeyDown={onKeyDown}
    >
      {VOTES.map((v, i) => (
        <button
          key={v}
          ref={(el) => {
            refs.current[i] = el;
          }}
          type="button"
          role="radio"
          aria-checked={value === v}
          // Roving tabindex: one stop for the group, on the checked choice (the first when none is).
          tabIndex={i === (at === -1 ? 0 : at) ? 0 : -1}
          disabled={disabled}
          className={value === v ? "on" : undefined}
          onClick={() => onChange(v)}
        >
          {TEXT[v]} <kbd>{KEY[v]}</kbd>
        </button>
      ))}
    </div>
  );
}
