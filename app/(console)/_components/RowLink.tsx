"use client";
import Link from "next/link";
import type { ReactNode } from "react";

/**
 * A list row's cells inside one real link (Tab, middle-click, copy link address), laid on the row's grid
 * (subgrid). The link sits in one grid cell spanning the row's columns (a row owns only cells in ARIA). The click
 * stays with the link, so Ctrl/⌘+click opens a tab without the row navigating too.
 */
export function RowLink({ href, children }: { href: string; children: ReactNode }) {
  return (
    <div role="gridcell" className="rowcell">
      <Link href={href} className="rowlink" onClick={(e) => e.stopPropagation()}>
        {children}
      </Link>
    </div>
  );
}
