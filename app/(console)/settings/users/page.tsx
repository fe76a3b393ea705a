"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { errorText, messageOf } from "../../../_lib/errors";
import { useTRPC } from "../../../_lib/trpc";
import { usePermission } from "../../_components/Permission";

type Role = "ADMIN" | "REVIEWER" | "VIEWER";

export default function UsersPage() {
  const trpc = useTRPC();
  const { ready, can, why } = usePermission();
  const qc = useQueryClient();
  const users = useQuery(trpc.users.list.queryOptions({ limit: 200 }));
  const create = useMutation(trpc.users.create.mutationOptions());
  const update = useMutation(trpc.users.update.mutationOptions());
  const [error, setError] = useState<string | null>(null);
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.users.pathKey() });

  async function onCreate(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const form = e.currentTarget;
    setError(null);
    try {
      await create.mutateAsync({
        email: String(f.get("email")),
        name: String(f.get("name") || "") || undefined,
        password: String(f.get("password")),
        role: f.get("role") as Role,
      });
      form.reset();
      await refresh();
    } catch (err) {
      setError(errorText(err));
    }
  }
  const change = (id: string, data: { role?: Role; disabled?: boolean }) => async () => {
    setError(null);
    try {
      await update.mutateAsync({ id, ...data });
      await refresh();
    } catch (err) {
      setError(messageOf(err));
    }
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
      {error && (
        <div className="form-error" role="alert">
          {error}
        </div>
      )}
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
                  onChange={(e) => void change(u.id, { role: e.target.value as Role })()}
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
