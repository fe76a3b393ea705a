"use client";
// Write controls by permission: a control the signed-in user may not use stays in the page, marked
// aria-disabled, with the reason as its accessible description (shown on hover and keyboard focus), instead of
// failing after a form was filled in. The server checks again on every call.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useId, type ButtonHTMLAttributes, type ReactNode } from "react";
import { useTRPC } from "../../_lib/trpc";
import { ROLE_PERMISSIONS, type Permission } from "../../../server/access/principal";

export type Perm = Exclude<Permission, "proxy">;

/** "the reviewer or admin role": the roles granting `p` in the server's own table, least powerful first. */
function rolesGranting(p: Perm): string {
  const roles = Object.entries(ROLE_PERMISSIONS)
    .filter(([, perms]) => perms.includes(p))
    .sort(([, a], [, b]) => a.length - b.length)
    .map(([role]) => role.toLowerCase());
  const list = roles.length > 1 ? `${roles.slice(0, -1).join(", ")} or ${roles.at(-1)}` : (roles[0] ?? "no");
  return `the ${list} role`;
}

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
        ? `Needs ${rolesGranting(p)}: you are signed in as ${/^[aeiou]/i.test(role) ? "an" : "a"} ${role}.`
        : "Checking your permissions…",
  };
}

/**
 * A denied control: focusable (aria-disabled, not disabled, so Tab reaches it), inert on click or Enter (also as a
 * form's submit button), described by its visible reason.
 */
function Denied({
  reason,
  children,
  ...props
}: ButtonHTMLAttributes<HTMLButtonElement> & { reason: string; children?: ReactNode }) {
  const id = useId();
  return (
    <span className="guarded">
      <button
        {...props}
        aria-disabled="true"
        aria-describedby={id}
        title={reason}
        data-permission="denied"
        onClick={(e) => e.preventDefault()}
      >
        {children}
      </button>
      <span id={id} role="tooltip" className="perm-why">
        {reason}
      </span>
    </span>
  );
}

export function GuardedButton({ perm, ...props }: ButtonHTMLAttributes<HTMLButtonElement> & { perm: Perm }) {
  const { can, why } = usePermission();
  if (can(perm)) return <button {...props} />;
  const { onClick: _onClick, disabled: _disabled, title: _title, ...rest } = props;
  return <Denied {...rest} reason={why(perm)} />;
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
    <Denied type="button" className={className.replace(/\bbutton\b/, "").trim() || undefined} reason={why(perm)}>
      {children}
    </Denied>
  );
}
