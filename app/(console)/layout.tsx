import type { ReactNode } from "react";
import { requireUser } from "../_lib/session";
import { Nav } from "./_components/Nav";

export const dynamic = "force-dynamic";

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const user = await requireUser();
  return (
    <div className="shell">
      <Nav email={user.email} role={user.role} isAdmin={user.permissions.includes("admin")} />
      <main className="main">{children}</main>
    </div>
  );
}
