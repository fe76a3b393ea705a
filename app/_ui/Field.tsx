"use client";
// Form controls with their label: the visible caption is the control's accessible name.
import { useEffect, useRef, useState, type ReactNode } from "react";

/** A captioned control (`label.field`); `inline` puts the caption beside it, not above. */
export function Field({
  label,
  children,
  inline,
  className,
}: {
  label: ReactNode;
  children: ReactNode;
  inline?: boolean;
  className?: string;
}) {
  return (
    <label className={["field", inline ? "inline" : "", className ?? ""].filter(Boolean).join(" ")}>
      <span>{label}</span>
      {children}
    </label>
  );
}

/** An option: its value (undefined = "any", shown first) and its text. */
export type Choice<V> = readonly [V | undefined, string];

/**
 * A labelled <select> over typed values (enum members, booleans, numbers): the DOM value is the value's string
 * form ("" for undefined), and the change hands back the typed value, so no call site casts.
 */
export function Select<V extends string | number | boolean>({
  label,
  value,
  onChange,
  options,
  inline,
}: {
  label: string;
  value: V | undefined;
  onChange: (v: V | undefined) => void;
  options: readonly Choice<V>[];
  inline?: boolean;
}) {
  const key = (v: V | undefined) => (v === undefined ? "" : String(v));
  return (
    <Field label={label} inline={inline}>
      <select
        aria-label={label}
        value={key(value)}
        onChange={(e) => onChange(options.find(([v]) => key(v) === e.target.value)?.[0])}
      >
        {options.map(([v, text]) => (
          <option key={key(v)} value={key(v)}>
            {text}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** A text input that commits (trimmed) after a pause in typing, so a URL filter does not refetch per key. */
export function DebouncedInput({
  label,
  value,
  onCommit,
  placeholder,
  delayMs = 350,
}: {
  label: string;
  value: string;
  onCommit: (v: string) => void;
  placeholder?: string;
  delayMs?: number;
}) {
  const [text, setText] = useState(value);
  // The latest callback, so a parent re-rendering mid-typing (a refetch) does not restart the pause.
  const commit = useRef(onCommit);
  useEffect(() => {
    commit.current = onCommit;
  });
  useEffect(() => setText(value), [value]);
  useEffect(() => {
    if (text.trim() === value) return;
    const t = setTimeout(() => commit.current(text.trim()), delayMs);
    return () => clearTimeout(t);
  }, [text, value, delayMs]);
  return (
    <Field label={label}>
      <input aria-label={label} value={text} placeholder={placeholder} onChange={(e) => setText(e.target.value)} />
    </Field>
  );
}
