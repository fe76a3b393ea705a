import type { ReactNode } from "react";

/** A page's or card's header row: a title, then controls; `<Spacer />` pushes what follows to the right. */
export function Toolbar({
  title,
  children,
  className,
  label,
}: {
  title?: ReactNode;
  children?: ReactNode;
  className?: string;
  label?: string;
}) {
  return (
    <div className={`toolbar${className ? ` ${className}` : ""}`} aria-label={label}>
      {title !== undefined && <h1 className="flush">{title}</h1>}
      {children}
    </div>
  );
}

export const Spacer = () => <span className="spacer" />;
