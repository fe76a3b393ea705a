"use client";
// The experiment's eval sets: versions, JSONL download, JSONL upload (a 400 names the bad line), the persona set
// of the simulated users' held-out questions, and a gate set of the questions they ask (serving.gate.set).
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC, useTRPCClient } from "../../_lib/trpc";
import { ErrorBanner } from "../../_ui/ErrorBanner";
import { useAction } from "../../_ui/useAction";
import { GuardedButton } from "../_components/Permission";

export function EvalSets({ experimentId }: { experimentId: string }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const sets = useQuery(trpc.evaluation.sets.queryOptions({ experimentId }));
  const refresh = { invalidate: [trpc.evaluation.pathKey()] };
  const upload = useAction(trpc.evaluation.upload.mutationOptions(), refresh);
  const persona = useAction(trpc.evaluation.personaSet.mutationOptions(), refresh);
  const [name, setName] = useState("held-out");

  async function onFile(file: File | undefined) {
    if (!file) return;
    persona.clear();
    await upload.run({ experimentId, name, jsonl: await file.text(), mode: "replace" });
  }
  async function download(id: string, version: number) {
    const r = await client.evaluation.download.query({ id, version });
    const url = URL.createObjectURL(new Blob([r.jsonl], { type: "application/x-ndjson" }));
    const link = Object.assign(document.createElement("a"), { href: url, download: `${r.name}-v${r.version}.jsonl` });
    link.click();
    URL.revokeObjectURL(url);
  }

  return (
    <div className="card" data-testid="eval-sets">
      <h2 style={{ marginTop: 0 }}>Eval sets</h2>
      <ErrorBanner error={upload.error ?? persona.error} />
      {sets.data?.length ? (
        <table className="list">
          <thead>
            <tr>
              <th>Name</th>
              <th>Latest</th>
              <th>Versions</th>
            </tr>
          </thead>
          <tbody>
            {sets.data.map((s) => (
              <tr key={s.id}>
                <td>
                  {s.name}
                  <div className="muted" style={{ fontSize: 11 }}>
                    {s.description}
                  </div>
                </td>
                <td>v{s.latestVersion}</td>
                <td>
                  {s.versions.map((v) => (
                    <button
                      key={v.id}
                      style={{ marginRight: 4 }}
                      title={`${v.source}, ${v.items} items`}
                      onClick={() => download(s.id, v.version)}
                    >
                      v{v.version} ↓
                    </button>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <div className="empty">No eval set yet.</div>
      )}
      <div className="toolbar" style={{ marginTop: 8 }}>
        <label className="field" style={{ flexDirection: "row", alignItems: "center", gap: 6 }}>
          <span>Set name</span>
          <input value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label className="button">
          Upload JSONL
          <input
            type="file"
            accept=".jsonl,.ndjson,application/x-ndjson"
            hidden
            onChange={(e) => onFile(e.target.files?.[0])}
          />
        </label>
        <GuardedButton
          perm="write"
          disabled={persona.pending}
          onClick={() => {
            upload.clear();
            void persona.run({ experimentId, name: "held-out personas" });
          }}
        >
          Create persona set
        </GuardedButton>
        <GuardedButton
          perm="write"
          disabled={persona.pending}
          title="The questions the simulated users ask (none held out): a set for the promotion gate (serving.gate.set), so the held-out set stays unselected on"
          onClick={() => {
            upload.clear();
            void persona.run({ experimentId, name: "asked questions", questions: "asked" });
          }}
        >
          Create gate set (asked questions)
        </GuardedButton>
      </div>
      <p className="muted" style={{ fontSize: 12 }}>
        One JSON object per line:{" "}
        <code>{`{"key": "…", "messages": [{"role": "user", "content": "…"}], "reference": "…", "rubric": "…", "persona": "leo"}`}</code>{" "}
        (or <code>prompt</code> instead of messages). Recorded turns can be added from the API (
        <code>POST /api/v1/eval-sets/add-turns</code>).
      </p>
    </div>
  );
}
