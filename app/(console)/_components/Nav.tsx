"use client";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useEffect, useState } from "react";

const LINKS = [
  { href: "/experiments", label: "Experiments" },
  { href: "/trajectories", label: "Trajectories" },
  { href: "/sessions", label: "Sessions" },
  { href: "/review", label: "Review" },
  { href: "/metrics", label: "Metrics" },
  { href: "/evaluation", label: "Evaluation" },
  { href: "/environments", label: "Environments" },
  { href: "/task-sets", label: "Task sets" },
  { href: "/episodes", label: "Episodes" },
  { href: "/playground", label: "Playground" },
  { href: "/simulation", label: "Simulated users" },
  { href: "/workers", label: "Workers" },
];
const ADMIN_LINKS = [
  { href: "/settings/users", label: "Users" },
  { href: "/settings/keys", label: "API keys" },
];

/** The sidebar; on a narrow window a top bar whose menu button opens the links (closed again on navigation). */
export function Nav({ email, role, isAdmin }: { email: string; role: string; isAdmin: boolean }) {
  const path = usePathname();
  const router = useRouter();
  const [open, setOpen] = useState(false);
  useEffect(() => setOpen(false), [path]);
  const link = (l: { href: string; label: string }) => {
    // The section's pages (a turn under /trajectories) count as that link's page.
    const current = path === l.href || path.startsWith(`${l.href}/`);
    return (
      <Link
        key={l.href}
        href={l.href}
        className={current ? "active" : undefined}
        aria-current={current ? "page" : undefined}
      >
        {l.label}
      </Link>
    );
  };
  async function logout() {
    await fetch("/api/auth/logout", { method: "POST" });
    router.replace("/login");
    router.refresh();
  }
  return (
    <nav className={`nav${open ? " open" : ""}`} aria-label="Main">
      <div className="nav-head">
        <div className="brand">
          {/* eslint-disable-next-line @next/next/no-img-element -- a 1 kB SVG: next/image adds nothing */}
          <img src="/logo.svg" alt="" width={22} height={22} />
          <span>
            OpenClaw-RL Console<small>RL from live conversations</small>
          </span>
        </div>
        <button
          type="button"
          className="nav-toggle"
          aria-expanded={open}
          aria-controls="nav-links"
          onClick={() => setOpen((o) => !o)}
        >
          {open ? "Close" : "Menu"}
        </button>
      </div>
      <div className="nav-links" id="nav-links">
        {LINKS.map(link)}
        {isAdmin && <div className="section">Settings</div>}
        {isAdmin && ADMIN_LINKS.map(link)}
        <div className="who">
          <div>{email}</div>
          <div>{role.toLowerCase()}</div>
          <button onClick={logout} style={{ marginTop: 8, width: "100%" }}>
            Sign out
          </button>
        </div>
      </div>
    </nav>
  );
}
