"use client";
import { useState } from "react";

/** Copies `text` to the clipboard and says so for a moment. */
export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [done, setDone] = useState<"copied" | "failed" | null>(null);
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setDone("copied");
    } catch {
      // Clipboard access needs a secure context (https or localhost).
      setDone("failed");
    }
    setTimeout(() => setDone(null), 1500);
  }
  return (
    <button type="button" className="copy" onClick={() => void copy()} aria-label={label}>
      {done === "copied" ? "Copied" : done === "failed" ? "Select and copy" : label}
    </button>
  );
}
