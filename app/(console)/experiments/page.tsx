"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useTRPC } from "../../_lib/trpc";
import { GuardedLink } from "../_components/Permission";

type Status = "ACTIVE" | "ARCHIVED" | "ALL";
type Sort = "updatedAt" | "createdAt" | "name";

export default function ExperimentsPage() {
  const trpc = useTRPC();
  const [search, setSearch] = useState("");
  const [status, setStatus] = useState<Status>("ACTIVE");
  const [method, setMethod] = useState<"" | "grpo" | "opd" | "combine">("");
  const [sort, setSort] = useState<Sort>("updatedAt");
  const [cursors, setCursors] = useState<string[]>([]);
  const input = {
    search: search || undefined,
    status,
    method: method || undefined,
    sort,
    order: sort === "name" ? ("asc" as const) : ("desc" as const),
    limit: 25,
    cursor: cursors[cursors.length - 1],
  };
  const list = useQuery({ ...trpc.experiments.list.queryOptions(input), placeholderData: keepPreviousData });

  return (
    <>
      <div className="toolbar">
        <h1 style={{ margin: 0 }}>Experiments</h1>
        <span className="spacer" />
        <Link className="button" href="/experiments/diff">
          Compare configs
        </Link>
        <GuardedLink perm="write" className="button primary" href="/experiments/new">
          New experiment
        </GuardedLink>
      </div>
      <div className="toolbar">
        <input
          aria-label="Search experiments"
          placeholder="Search name, slug, description…"
          value={search}
          style={{ maxWidth: 320 }}
          onChange={(e) => (setSearch(e.target.value), setCursors([]))}
        />
        <select
          aria-label="Status"
          value={status}
          style={{ width: 140 }}
          onChange={(e) => (setStatus(e.target.value as Status), setCursors([]))}
        >
          <option value="ACTIVE">Active</option>
          <option value="ARCHIVED">Archived</option>
          <option value="ALL">All</option>
        </select>
        <select
          aria-label="Method"
          value={method}
          style={{ width: 140 }}
          onChange={(e) => (setMethod(e.target.value as typeof method), setCursors([]))}
        >
          <option value="">Any method</option>
          <option value="grpo">GRPO</option>
          <option value="opd">OPD</option>
          <option value="combine">Combine</option>
        </select>
        <select
          aria-label="Sort"
          value={sort}
          style={{ width: 170 }}
          onChange={(e) => (setSort(e.target.value as Sort), setCursors([]))}
        >
          <option value="updatedAt">Recently updated</option>
          <option value="createdAt">Recently created</option>
          <option value="name">Name</option>
        </select>
      </div>
      {list.error && <div className="form-error">{list.error.message}</div>}
      <table className="list" data-testid="experiments-table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Slug</th>
            <th>Method</th>
            <th>Policy</th>
            <th>Run</th>
            <th>Turns</th>
            <th>Status</th>
            <th>Updated</th>
          </tr>
        </thead>
        <tbody>
          {list.data?.items.map((e) => (
            <tr key={e.id}>
              <td>
                <Link href={`/experiments/${e.id}`}>{e.name}</Link>
                {e.demo && (
                  <span className="badge" style={{ marginLeft: 6 }}>
                    demo
                  </span>
                )}
              </td>
              <td className="mono">{e.slug}</td>
              <td>{e.config.method}</td>
              <td>{e.config.policy.kind}</td>
              <td>
                {e.activeRun ? (
                  <span className={`badge ${e.activeRun.status}`}>
                    #{e.activeRun.number} {e.activeRun.status.toLowerCase()}
                  </span>
                ) : (
                  <span className="muted">—</span>
                )}
              </td>
              <td>{e.counts?.turns ?? 0}</td>
              <td>
                <span className={`badge ${e.status}`}>{e.status.toLowerCase()}</span>
              </td>
              <td className="muted">{new Date(e.updatedAt).toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.data && !list.data.items.length && (
        <div className="empty">
          No experiments match. <Link href="/experiments/new">Create one</Link>.
        </div>
      )}
      {/* No pager for a single page. */}
      {(cursors.length > 0 || !!list.data?.nextCursor) && (
        <div className="toolbar" style={{ marginTop: 12 }} data-testid="experiments-pager">
          <button disabled={!cursors.length} onClick={() => setCursors(cursors.slice(0, -1))}>
            ← Previous
          </button>
          <button
            disabled={!list.data?.nextCursor}
            onClick={() => list.data?.nextCursor && setCursors([...cursors, list.data.nextCursor])}
          >
            Next →
          </button>
        </div>
      )}
    </>
  );
}
