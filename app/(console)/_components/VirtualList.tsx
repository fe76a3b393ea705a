"use client";
import { useEffect, useRef, useState, type ReactNode } from "react";

/**
 * A windowed list: only the rows in view (plus a margin) are in the DOM, so a browser holding thousands of
 * loaded turns stays fast. Rows have a fixed height; `onEndReached` asks for the next page near the bottom.
 */
export function VirtualList<T>({
  items,
  rowHeight = 40,
  height = 560,
  columns,
  header,
  getKey,
  renderRow,
  onSelect,
  selectedKey,
  onEndReached,
  testId,
}: {
  items: readonly T[];
  rowHeight?: number;
  height?: number;
  /** CSS grid-template-columns shared by the header and every row. */
  columns: string;
  header: ReactNode;
  getKey: (item: T) => string;
  renderRow: (item: T) => ReactNode;
  onSelect?: (item: T) => void;
  selectedKey?: string | null;
  onEndReached?: () => void;
  testId?: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const overscan = 8;
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(items.length, Math.ceil((scrollTop + height) / rowHeight) + overscan);
  const nearEnd = last >= items.length - overscan;
  useEffect(() => {
    if (nearEnd && items.length) onEndReached?.();
  }, [nearEnd, items.length, onEndReached]);
  return (
    <div ref={ref} className="vlist" style={{ height }} data-testid={testId} onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}>
      <div className="vrow vhead" style={{ gridTemplateColumns: columns, height: rowHeight, position: "sticky", top: 0 }}>
        {header}
      </div>
      <div style={{ height: items.length * rowHeight, position: "relative" }}>
        {items.slice(first, last).map((item, i) => {
          const key = getKey(item);
          return (
            <div
              key={key}
              role="row"
              data-key={key}
              className={`vrow${selectedKey === key ? " selected" : ""}`}
              style={{ gridTemplateColumns: columns, height: rowHeight, top: (first + i) * rowHeight }}
              onClick={() => onSelect?.(item)}
            >
              {renderRow(item)}
            </div>
          );
        })}
      </div>
    </div>
  );
}
