"use client";
// Saved filter views (Langfuse's "saved views"): a name for the page's current URL filters, kept in this
// browser's localStorage. Filters already live in the URL, so a view is just its query string.
import { useEffect, useState } from "react";

interface View {
  name: string;
  query: string;
}

function load(key: string): View[] {
  try {
    const v = JSON.parse(localStorage.getItem(key) ?? "[]") as unknown;
    return Array.isArray(v)
      ? v.filter((x): x is View => !!x && typeof x.name === "string" && typeof x.query === "string")
      : [];
  } catch {
    return [];
  }
}

export function SavedViews({
  storageKey,
  query,
  onApply,
}: {
  storageKey: string;
  query: string;
  onApply: (query: string) => void;
}) {
  const [views, setViews] = useState<View[]>([]);
  useEffect(() => setViews(load(storageKey)), [storageKey]);
  const store = (next: View[]) => {
    setViews(next);
    localStorage.setItem(storageKey, JSON.stringify(next));
  };
  const current = views.find((v) => v.query === query);

  function save() {
    const name = prompt("Name this view (its filters are saved in this browser)", current?.name ?? "")?.trim();
    if (!name) return;
    store([...views.filter((v) => v.name !== name), { name, query }].sort((a, b) => a.name.localeCompare(b.name)));
  }

  return (
    <div className="toolbar" data-testid="saved-views" style={{ marginBottom: 0 }}>
      <label className="field" style={{ minWidth: 180 }}>
        <span>Saved views</span>
        <select
          aria-label="Saved views"
          value={current?.name ?? ""}
          onChange={(e) => {
            const v = views.find((x) => x.name === e.target.value);
            if (v) onApply(v.query);
          }}
        >
          <option value="">{views.length ? "Choose a view…" : "No saved views yet"}</option>
          {views.map((v) => (
            <option key={v.name} value={v.name}>
              {v.name}
            </option>
          ))}
        </select>
      </label>
      <button
        onClick={save}
        disabled={!query}
        title={query ? "Save the current filters under a name" : "Set some filters first"}
      >
        Save view
      </button>
      {current && (
        <button onClick={() => store(views.filter((v) => v !== current))}>Delete view “{current.name}”</button>
      )}
    </div>
  );
}
