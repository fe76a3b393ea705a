"use client";
// The experiment's policy versions with promote and rollback: the way back when a trained version got worse.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../../../_lib/trpc";
import { messageOf } from "../../../_lib/errors";
import { fmtTime } from "../../_components/format";
import { GuardedButton } from "../../_components/Permission";

export function PolicyVersions({ experimentId }: { experimentId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const list = useQuery({
    ...trpc.policyVersions.list.queryOptions({ experimentId, limit: 20 }),
    refetchInterval: 5000,
  });
  const promote = useMutation(trpc.policyVersions.promote.mutationOptions());
  const rollback = useMutation(trpc.policyVersions.rollback.mutationOptions());
  const [msg, setMsg] = useState<{ ok: boolean; text: string } | null>(null);
  const items = list.data?.items ?? [];
  const active = items.find((v) => v.status === "ACTIVE") ?? null;
  const busy = promote.isPending || rollback.isPending;

  async function change(what: string, fn: () => Promise<{ active: { version: number }; previous: number }>) {
    if (!confirm(`${what}? Every proxy switches to it for new requests.`)) return;
    setMsg(null);
    try {
      const r = await fn();
      setMsg({
        ok: true,
        text: `Now serving version ${r.active.version}${r.active.version === 0 ? " (base)" : ""}; was ${r.previous}.`,
      });
      await qc.invalidateQueries({ queryKey: trpc.policyVersions.pathKey() });
    } catch (err) {
      setMsg({ ok: false, text: messageOf(err) });
    }
  }

  return (
    <div className="card" data-testid="policy-versions">
      <div className="toolbar">
        <h3 style={{ margin: 0 }}>Policy versions</h3>
        <span className="muted" data-testid="serving">
          serving {active ? `version ${active.version}` : "the base checkpoint (version 0)"}
        </span>
        <span className="spacer" />
        {active && (
          <GuardedButton
            perm="write"
            disabled={busy}
            onClick={() =>
              void change(
                `Roll back from version ${active.version} to ${active.parentVersion ? `version ${active.parentVersion}` : "the base"}`,
                () => rollback.mutateAsync({ experimentId }),
              )
            }
          >
            Roll back to {active.parentVersion ? `v${active.parentVersion}` : "base"}
          </GuardedButton>
        )}
        {active && active.parentVersion !== 0 && (
          <GuardedButton
            perm="write"
            disabled={busy}
            onClick={() =>
              void change("Serve the base checkpoint (version 0)", () =>
                rollback.mutateAsync({ experimentId, toVersion: 0 }),
              )
            }
          >
            Serve base (v0)
          </GuardedButton>
        )}
      </div>
      {msg && (
        <div className={msg.ok ? "notice" : "form-error"} role="status">
          {msg.text}
        </div>
      )}
      {list.error && <div className="form-error">{list.error.message}</div>}
      {items.length > 0 && (
        <table className="list">
          <thead>
            <tr>
              <th>Version</th>
              <th>Status</th>
              <th>From</th>
              <th>Step</th>
              <th>Created</th>
              <th>Promoted</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {items.map((v) => (
              <tr key={v.id} data-testid={`version-${v.version}`}>
                <td>v{v.version}</td>
                <td>
                  <span
                    className={`badge ${v.status === "ACTIVE" ? "ACTIVE" : v.status === "ROLLED_BACK" ? "FAILED" : ""}`}
                  >
                    {v.status.toLowerCase().replace("_", " ")}
                  </span>
                </td>
                <td className="muted">v{v.parentVersion ?? 0}</td>
                <td>{v.step ?? "—"}</td>
                <td className="muted">{fmtTime(v.createdAt)}</td>
                <td className="muted">{v.promotedAt ? fmtTime(v.promotedAt) : "—"}</td>
                <td>
                  {v.status !== "ACTIVE" && (
                    <GuardedButton
                      perm="write"
                      disabled={busy || !v.available}
                      title={v.available ? undefined : "Its checkpoint files were pruned (keepCheckpoints)"}
                      onClick={() =>
                        void change(`Promote version ${v.version}`, () =>
                          promote.mutateAsync({ experimentId, version: v.version }),
                        )
                      }
                    >
                      Promote v{v.version}
                    </GuardedButton>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {list.data && !items.length && (
        <div className="empty">No trained version yet: the base checkpoint is served.</div>
      )}
    </div>
  );
}
