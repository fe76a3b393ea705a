"use client";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";

const LINKS = [
  { href: "/experiments", label: "Experiments" },
  { href: "/trajectories", label: "Trajectories" },
  { href: "/sessions", label: "Sessions" },
  { href: "/review", label: "Review" },
  { href: "/metrics", label: "Metrics" },
  { href: "/playground", label: "Playground" },
  { href: "/simulation", label: "Simulated users" },
  { href: "/workers", label: "Workers" },
];
const ADMIN_LINKS = [
  { href: "/settings/users", label: "Users" },
  { href: "/settings/keys", label: "API keys" },
];

export function Nav({ email, role, isAdmin }: { email: string; role: string; isAdmin: boolean }) {
  const path = usePathname();
  const router = useRouter();
  const link = (l: { href: string; label: string }) => (
    <Link key={l.href} href={l.href} className={path.startsWith(l.href) ? "active" : undefined}>
      {l.label}
    </Link>
  );
  async function logout() {
    await fetch("/api/auth/logout", { method: "POST" });
    router.replace("/login");
    router.refresh();
  }
  return (
    <nav className="nav">
      <div className="brand">
        OpenClaw-RL Console<small>RL from live conversations</small>
      </div>
      {LINKS.map(link)}
      {isAdmin && <div className="section">Settings</div>}
      {isAdmin && ADMIN_LINKS.map(link)}
      <div className="who">
        <div>{email}</div>
        <div>{role.toLowerCase()}</div>
        <button onClick={logout} style={{ marginTop: 8, width: "100%" }}>Sign out</button>
      </div>
    </nav>
  );
}
