"use client";
import { useQuery } from "@tanstack/react-query";
import { useSearchParams } from "next/navigation";
import { Suspense, useState, type FormEvent } from "react";
import { useTRPC } from "../../../_lib/trpc";
import { ErrorBanner } from "../../../_ui/ErrorBanner";
import { useAction } from "../../../_ui/useAction";
import { usePermission } from "../../_components/Permission";
import { CopyButton } from "../../_components/CopyButton";

const SCOPES = [
  { id: "proxy", help: "call the OpenAI-compatible proxy" },
  { id: "read", help: "read experiments, trajectories, metrics" },
  { id: "write", help: "read + change experiments, runs, labels" },
  { id: "admin", help: "everything, including users and keys" },
  { id: "identity", help: "proxy + name the end user of each request (X-User-Id / X-Agent-Id)" },
] as const;

function Keys() {
  const trpc = useTRPC();
  const { ready, can, why } = usePermission();
  // Arriving from an experiment's "connect your agent": the new key is bound to it.
  const preset = useSearchParams().get("experimentId") ?? "";
  const [showRevoked, setShowRevoked] = useState(false);
  const keys = useQuery(trpc.apiKeys.list.queryOptions({ limit: 200, includeRevoked: showRevoked }));
  const experiments = useQuery(trpc.experiments.list.queryOptions({ limit: 200 }));
  const refresh = { invalidate: [trpc.apiKeys.pathKey()] };
  const create = useAction(trpc.apiKeys.create.mutationOptions(), refresh);
  const revoke = useAction(trpc.apiKeys.revoke.mutationOptions(), refresh);
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const expName = (id: string | null) => (id ? (experiments.data?.items.find((e) => e.id === id)?.slug ?? id) : "all");

  async function onCreate(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    revoke.clear();
    const k = await create.run({
      name: String(f.get("name")),
      scopes: f.getAll("scopes").map(String) as ("proxy" | "read" | "write" | "admin")[],
      experimentId: String(f.get("experimentId") || "") || undefined,
      endUserId: String(f.get("endUserId") || "").trim() || undefined,
    });
    if (!k.ok) return;
    setCreated({ name: k.data.name, key: k.data.key });
    form.reset();
  }

  if (!ready) return <div className="muted">Loading…</div>;
  if (!can("admin"))
    return (
      <>
        <h1>API keys</h1>
        <div className="notice">{why("admin")}</div>
      </>
    );
  return (
    <>
      <h1>API keys</h1>
      {created && (
        <div className="notice" role="status">
          Key <b>{created.name}</b> — copy it now, it will not be shown again:
          <pre data-testid="new-key">{created.key}</pre>
          <div className="toolbar" style={{ marginBottom: 0 }}>
            <CopyButton text={created.key} label="Copy key" />
            <button onClick={() => setCreated(null)}>Done</button>
          </div>
        </div>
      )}
      <ErrorBanner error={create.error ?? revoke.error} />
      <form className="card" onSubmit={onCreate}>
        <h3>Create a key</h3>
        <div className="grid2">
          <label className="field">
            <span>Name</span>
            <input name="name" required placeholder="e.g. laptop OpenClaw" />
          </label>
          <label className="field">
            <span>Bound to experiment (optional)</span>
            <select name="experimentId" key={preset + (experiments.data ? "1" : "0")} defaultValue={preset}>
              <option value="">All experiments</option>
              {experiments.data?.items.map((e) => (
                <option key={e.id} value={e.id}>
                  {e.slug}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            <span>Serves one end user (optional: per-user experiments; proxy scope only)</span>
            <input name="endUserId" placeholder="e.g. maya@example.com" maxLength={128} />
          </label>
        </div>
        <div style={{ display: "flex", gap: 16, margin: "12px 0", flexWrap: "wrap" }}>
          {SCOPES.map((s) => (
            <label key={s.id} title={s.help} style={{ display: "flex", gap: 6, alignItems: "center" }}>
              <input type="checkbox" name="scopes" value={s.id} defaultChecked={s.id === "proxy"} /> {s.id}{" "}
              <span className="muted" style={{ fontSize: 11 }}>
                ({s.help})
              </span>
            </label>
          ))}
        </div>
        <button className="primary" type="submit">
          Create key
        </button>
      </form>
      <label style={{ display: "flex", gap: 6, alignItems: "center", marginBottom: 8 }}>
        <input type="checkbox" checked={showRevoked} onChange={(e) => setShowRevoked(e.target.checked)} /> show revoked
      </label>
      <table className="list">
        <thead>
          <tr>
            <th>Name</th>
            <th>Prefix</th>
            <th>Scopes</th>
            <th>Experiment</th>
            <th>Last used</th>
            <th>Created</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {keys.data?.items.map((k) => (
            <tr key={k.id}>
              <td>{k.name}</td>
              <td className="mono">{k.prefix}_…</td>
              <td>{k.scopes.join(", ")}</td>
              <td>
                {expName(k.experimentId)}
                {k.endUserId && <span className="muted"> · user {k.endUserId}</span>}
              </td>
              <td className="muted">{k.lastUsedAt ? new Date(k.lastUsedAt).toLocaleString() : "never"}</td>
              <td className="muted">{new Date(k.createdAt).toLocaleDateString()}</td>
              <td>
                {k.revokedAt ? (
                  <span className="badge KILLED">revoked</span>
                ) : (
                  <button
                    className="danger"
                    onClick={() => {
                      create.clear();
                      void revoke.run({ id: k.id });
                    }}
                  >
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

export default function KeysPage() {
  return (
    <Suspense fallback={<div className="muted">Loading…</div>}>
      <Keys />
    </Suspense>
  );
}
