"use client";
// Write controls by permission: a control the signed-in user may not use is shown disabled with the reason on
// hover, instead of failing after a form was filled in. The server checks again on every call.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { ButtonHTMLAttributes, ReactNode } from "react";
import { useTRPC } from "../../_lib/trpc";

export type Perm = "read" | "review" | "write" | "admin";

const NEEDS: Record<Perm, string> = {
  read: "reading",
  review: "the reviewer or admin role",
  write: "the admin role",
  admin: "the admin role",
};

export function usePermission() {
  const trpc = useTRPC();
  const me = useQuery(trpc.me.queryOptions());
  const perms = me.data?.permissions ?? [];
  const role = me.data?.principal.kind === "user" ? me.data.principal.role.toLowerCase() : "API key";
  return {
    ready: !!me.data,
    /** false until the caller's permissions are known, so nothing flashes enabled for a viewer */
    can: (p: Perm) => perms.includes(p),
    why: (p: Perm) =>
      me.data
        ? `Needs ${NEEDS[p]}: you are signed in as ${/^[aeiou]/i.test(role) ? "an" : "a"} ${role}.`
        : "Checking your permissions…",
  };
}

export function GuardedButton({
  perm,
  disabled,
  title,
  ...props
}: ButtonHTMLAttributes<HTMLButtonElement> & { perm: Perm }) {
  const { can, why } = usePermission();
  const allowed = can(perm);
  return (
    <button
      {...props}
      disabled={disabled || !allowed}
      title={allowed ? title : why(perm)}
      data-permission={allowed ? undefined : "denied"}
    />
  );
}

export function GuardedLink({
  perm,
  href,
  className = "button",
  children,
}: {
  perm: Perm;
  href: string;
  className?: string;
  children: ReactNode;
}) {
  const { can, why } = usePermission();
  if (can(perm))
    return (
      <Link className={className} href={href}>
        {children}
      </Link>
    );
  return (
    <button
      type="button"
      className={className.replace(/\bbutton\b/, "").trim() || undefined}
      disabled
      title={why(perm)}
      data-permission="denied"
    >
      {children}
    </button>
  );
}
