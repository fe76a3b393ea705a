"use client";
// The experiment's policy versions with promote and rollback: the way back when a trained version got worse.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useTRPC } from "../../../_lib/trpc";
import { ErrorBanner } from "../../../_ui/ErrorBanner";
import { useAction, type ActionResult } from "../../../_ui/useAction";
import { fmtTime } from "../../_components/format";
import { GuardedButton } from "../../_components/Permission";

export function PolicyVersions({ experimentId, perUser = false }: { experimentId: string; perUser?: boolean }) {
  const trpc = useTRPC();
  const list = useQuery({
    ...trpc.policyVersions.list.queryOptions({ experimentId, limit: 20 }),
    refetchInterval: 5000,
  });
  const refresh = { invalidate: [trpc.policyVersions.pathKey()] };
  const promote = useAction(trpc.policyVersions.promote.mutationOptions(), refresh);
  const rollback = useAction(trpc.policyVersions.rollback.mutationOptions(), refresh);
  const [serving, setServing] = useState<string | null>(null);
  const items = list.data?.items ?? [];
  const active = items.find((v) => v.status === "ACTIVE") ?? null;
  const busy = promote.pending || rollback.pending;

  async function change(
    what: string,
    fn: () => Promise<ActionResult<{ active: { version: number }; previous: number }>>,
  ) {
    if (!confirm(`${what}? Every proxy switches to it for new requests.`)) return;
    setServing(null);
    promote.clear();
    rollback.clear();
    const r = await fn();
    if (r.ok)
      setServing(
        `Now serving version ${r.data.active.version}${r.data.active.version === 0 ? " (base)" : ""}; was ${r.data.previous}.`,
      );
  }

  return (
    <div className="card" data-testid="policy-versions">
      <div className="toolbar">
        <h3 className="flush">Policy versions</h3>
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
                () => rollback.run({ experimentId }),
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
              void change("Serve the base checkpoint (version 0)", () => rollback.run({ experimentId, toVersion: 0 }))
            }
          >
            Serve base (v0)
          </GuardedButton>
        )}
      </div>
      {serving && (
        <div className="notice" role="status">
          {serving}
        </div>
      )}
      <ErrorBanner error={promote.error ?? rollback.error} />
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
                          promote.run({ experimentId, version: v.version }),
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
        <div className="empty">
          {perUser ? (
            <>
              The shared base is not trained here: each end user is served an adapter of their own (
              <Link href={`/experiments/${experimentId}/users`}>Users</Link>).
            </>
          ) : (
            "No trained version yet: the base checkpoint is served."
          )}
        </div>
      )}
    </div>
  );
}
