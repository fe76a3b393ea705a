"use client";
import { useQuery } from "@tanstack/react-query";
import type { FormEvent } from "react";
import { useTRPC } from "../../../_lib/trpc";
import { ErrorBanner } from "../../../_ui/ErrorBanner";
import { useAction } from "../../../_ui/useAction";
import { usePermission } from "../../_components/Permission";

type Role = "ADMIN" | "REVIEWER" | "VIEWER";

export default function UsersPage() {
  const trpc = useTRPC();
  const { ready, can, why } = usePermission();
  const users = useQuery(trpc.users.list.queryOptions({ limit: 200 }));
  const refresh = { invalidate: [trpc.users.pathKey()] };
  const create = useAction(trpc.users.create.mutationOptions(), refresh);
  const update = useAction(trpc.users.update.mutationOptions(), refresh);

  async function onCreate(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const form = e.currentTarget;
    update.clear();
    const r = await create.run({
      email: String(f.get("email")),
      name: String(f.get("name") || "") || undefined,
      password: String(f.get("password")),
      role: f.get("role") as Role,
    });
    if (r.ok) form.reset();
  }
  const change = (id: string, data: { role?: Role; disabled?: boolean }) => () => {
    create.clear();
    void update.run({ id, ...data });
  };

  if (!ready) return <div className="muted">Loading…</div>;
  if (!can("admin"))
    return (
      <>
        <h1>Users</h1>
        <div className="notice">{why("admin")}</div>
      </>
    );
  return (
    <>
      <h1>Users</h1>
      <ErrorBanner error={create.error ?? update.error} max={Infinity} />
      <form className="card" onSubmit={onCreate}>
        <h3>Add a user</h3>
        <div className="grid2">
          <label className="field">
            <span>Email</span>
            <input name="email" type="email" required />
          </label>
          <label className="field">
            <span>Name</span>
            <input name="name" />
          </label>
          <label className="field">
            <span>Initial password (8+ chars)</span>
            <input name="password" type="password" required minLength={8} />
          </label>
          <label className="field">
            <span>Role</span>
            <select name="role" defaultValue="VIEWER">
              <option>VIEWER</option>
              <option>REVIEWER</option>
              <option>ADMIN</option>
            </select>
          </label>
        </div>
        <br />
        <button className="primary" type="submit">
          Add user
        </button>
        <p className="muted" style={{ fontSize: 12 }}>
          Admins manage everything; reviewers read and relabel turns; viewers read.
        </p>
      </form>
      <table className="list">
        <thead>
          <tr>
            <th>Email</th>
            <th>Name</th>
            <th>Role</th>
            <th>State</th>
            <th>Last login</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {users.data?.items.map((u) => (
            <tr key={u.id}>
              <td>{u.email}</td>
              <td>{u.name ?? ""}</td>
              <td>
                <select
                  aria-label={`Role of ${u.email}`}
                  value={u.role}
                  onChange={(e) => change(u.id, { role: e.target.value as Role })()}
                  style={{ width: 130 }}
                >
                  <option>ADMIN</option>
                  <option>REVIEWER</option>
                  <option>VIEWER</option>
                </select>
              </td>
              <td>
                {u.disabled ? (
                  <span className="badge KILLED">disabled</span>
                ) : (
                  <span className="badge ACTIVE">active</span>
                )}
              </td>
              <td className="muted">{u.lastLoginAt ? new Date(u.lastLoginAt).toLocaleString() : "never"}</td>
              <td>
                <button onClick={change(u.id, { disabled: !u.disabled })}>{u.disabled ? "Enable" : "Disable"}</button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
