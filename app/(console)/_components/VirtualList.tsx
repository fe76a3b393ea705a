"use client";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useCallback, useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from "react";

/**
 * A windowed list (@tanstack/react-virtual): only the rows in view (plus a margin) are in the DOM, so a
 * browser holding thousands of loaded turns stays fast. `rowHeight` is the estimate and the minimum; rows
 * that grow taller are measured, and the virtualizer follows resizes. `onEndReached` asks for the next
 * page near the bottom.
 *
 * Keyboard: the list is focusable (Tab); ↑/↓ move the active row, PageUp/PageDown by a screenful,
 * Home/End to the ends, Enter (or Space) opens the active row like a click. The active row is scrolled
 * into view through the virtualizer, so it works for rows not yet in the DOM.
 *
 * ARIA: a grid (named by `label`) of a header rowgroup (column headers) and a body rowgroup; the focused grid
 * names its active row through aria-activedescendant, and aria-rowcount / aria-rowindex tell a screen reader
 * where a windowed row sits in the whole list. `renderRow` returns the row's cells (role="gridcell", e.g.
 * RowLink).
 */
export function VirtualList<T>({
  items,
  rowHeight = 40,
  height = 560,
  columns,
  header,
  label,
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
  /** One column header per column (an empty one may be an sr-only caption). */
  header: readonly ReactNode[];
  /** The grid's accessible name. */
  label: string;
  getKey: (item: T) => string;
  renderRow: (item: T) => ReactNode;
  onSelect?: (item: T) => void;
  selectedKey?: string | null;
  onEndReached?: () => void;
  testId?: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const overscan = 8;
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => ref.current,
    estimateSize: () => rowHeight,
    overscan,
    // Rows sit below the sticky header inside the same scroll element.
    scrollMargin: rowHeight,
    getItemKey: (i) => getKey(items[i]!),
    // First paint (and server render) before the element is measured.
    initialRect: { width: 0, height },
  });
  const virtualRows = virtualizer.getVirtualItems();
  const last = virtualRows.length ? virtualRows[virtualRows.length - 1]!.index + 1 : 0;
  const nearEnd = last >= items.length - overscan;
  useEffect(() => {
    if (nearEnd && items.length) onEndReached?.();
  }, [nearEnd, items.length, onEndReached]);

  const [active, setActive] = useState<number | null>(null);
  // Keep the active row inside the list when it shrinks (a new filter).
  const activeIndex = active === null ? null : Math.min(active, items.length - 1);
  const moveTo = useCallback(
    (index: number) => {
      if (!items.length) return;
      const next = Math.max(0, Math.min(items.length - 1, index));
      setActive(next);
      virtualizer.scrollToIndex(next, { align: "auto" });
    },
    [items.length, virtualizer],
  );
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.target !== e.currentTarget || e.altKey || e.ctrlKey || e.metaKey) return;
    const page = Math.max(1, Math.floor((height - rowHeight) / rowHeight));
    const from = activeIndex ?? -1;
    const go: Record<string, () => void> = {
      ArrowDown: () => moveTo(from + 1),
      ArrowUp: () => moveTo(from === -1 ? 0 : from - 1),
      PageDown: () => moveTo(from + page),
      PageUp: () => moveTo(from - page),
      Home: () => moveTo(0),
      End: () => moveTo(items.length - 1),
      Enter: () => activeIndex !== null && items[activeIndex] !== undefined && onSelect?.(items[activeIndex]!),
      " ": () => activeIndex !== null && items[activeIndex] !== undefined && onSelect?.(items[activeIndex]!),
    };
    const fn = go[e.key];
    if (!fn) return;
    e.preventDefault();
    fn();
  };
  const activeKey = activeIndex !== null && items[activeIndex] !== undefined ? getKey(items[activeIndex]!) : undefined;

  const idOf = (key: string) => `${testId ?? "vlist"}-row-${key}`;

  return (
    <div
      ref={ref}
      className="vlist"
      style={{ height }}
      data-testid={testId}
      role="grid"
      aria-label={label}
      aria-rowcount={items.length + 1}
      tabIndex={0}
      aria-activedescendant={activeKey ? idOf(activeKey) : undefined}
      onKeyDown={onKeyDown}
    >
      <div role="rowgroup" className="vhead-group" style={{ height: rowHeight }}>
        <div
          role="row"
          aria-rowindex={1}
          className="vrow vhead"
          style={{ gridTemplateColumns: columns, height: rowHeight }}
        >
          {header.map((h, i) => (
            <span role="columnheader" key={i}>
              {h}
            </span>
          ))}
        </div>
      </div>
      <div role="rowgroup" style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
        {virtualRows.map((row) => {
          const item = items[row.index]!;
          const key = getKey(item);
          const isActive = row.index === activeIndex;
          return (
            <div
              key={row.key}
              id={idOf(key)}
              ref={virtualizer.measureElement}
              data-index={row.index}
              role="row"
              aria-rowindex={row.index + 2}
              aria-selected={selectedKey === undefined ? undefined : selectedKey === key}
              data-key={key}
              data-active={isActive || undefined}
              className={`vrow${selectedKey === key || isActive ? " selected" : ""}`}
              style={{
                gridTemplateColumns: columns,
                minHeight: rowHeight,
                top: row.start - virtualizer.options.scrollMargin,
              }}
              onClick={() => {
                setActive(row.index);
                onSelect?.(item);
              }}
            >
              {renderRow(item)}
            </div>
          );
        })}
      </div>
    </div>
  );
}
