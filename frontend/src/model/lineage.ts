/**
 * Lineage on the drawn graph: everything a drawn item depends on (upstream) or feeds
 * (downstream), following the visible edges. No DOM.
 */
import type { VisibleGraph } from "./visible";

export interface Lineage {
  /** Drawn nodes and boxes in the lineage, the seeds included. */
  readonly items: ReadonlySet<string>;
  /** Visible edge ids on the way. */
  readonly edges: ReadonlySet<string>;
  /** Open modules holding at least one item of the lineage. */
  readonly containers: ReadonlySet<string>;
}

/** The drawn items that stand for `id` (a node, a closed box, or everything drawn in an open module). */
export function seedsOf(visible: VisibleGraph, id: string): string[] {
  const owner = visible.nodeOwner.get(id) ?? visible.moduleOwner.get(id) ?? null;
  if (owner === null) return [];
  if (visible.items.has(owner)) return [owner];
  const seeds: string[] = [];
  const pending = [owner];
  for (let c = pending.pop(); c !== undefined; c = pending.pop()) {
    for (const m of visible.containers.get(c)?.members ?? []) {
      if (visible.items.has(m)) seeds.push(m);
      else if (visible.containers.has(m)) pending.push(m);
    }
  }
  return seeds;
}

/** The lineage of `seeds` upstream, downstream or both. */
export function lineage(visible: VisibleGraph, seeds: readonly string[], up: boolean, down: boolean): Lineage {
  const items = new Set(seeds);
  const edges = new Set<string>();
  const walk = (forward: boolean): void => {
    const next = new Map<string, { edge: string; other: string }[]>();
    for (const e of visible.edges) {
      const [from, to] = forward ? [e.source, e.target] : [e.target, e.source];
      const list = next.get(from);
      if (list === undefined) next.set(from, [{ edge: e.id, other: to }]);
      else list.push({ edge: e.id, other: to });
    }
    const seen = new Set(seeds);
    const pending = [...seeds];
    for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
      for (const { edge, other } of next.get(id) ?? []) {
        edges.add(edge);
        items.add(other);
        if (!seen.has(other)) {
          seen.add(other);
          pending.push(other);
        }
      }
    }
  };
  if (up) walk(false);
  if (down) walk(true);
  const containers = new Set<string>();
  for (const id of items) {
    const item = visible.items.get(id);
    let c: string | null = item === undefined ? null : item.type === "node" ? item.container : item.container;
    while (c !== null && !containers.has(c)) {
      containers.add(c);
      c = visible.containers.get(c)?.parent ?? null;
    }
  }
  return { items, edges, containers };
}
