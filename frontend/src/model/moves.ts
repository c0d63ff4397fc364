/**
 * Where the arrow keys move the selection on the drawn graph: to the producer of what the
 * selection reads, to the first consumer of what it makes, or to the previous / next sibling
 * in its module (execution order). No DOM.
 */
import type { GraphIndex } from "./document";
import { seedsOf } from "./lineage";
import type { VisibleGraph } from "./visible";

export type Move = "producer" | "consumer" | "previous" | "next";

/** The drawn item or open module (its id) that the selection `id` moves to, or null to stay. */
export function move(index: GraphIndex, visible: VisibleGraph, id: string, where: Move): string | null {
  const owner = visible.nodeOwner.get(id) ?? visible.moduleOwner.get(id) ?? null;
  if (owner === null) return null;
  if (where === "previous" || where === "next") return sibling(visible, owner, where === "next" ? 1 : -1);
  const inside = new Set(seedsOf(visible, owner));
  const order = (item: string): number => index.nodeIndex.get(item) ?? index.moduleFirstNode.get(item) ?? Number.POSITIVE_INFINITY;
  let best: { id: string; key: number; port: number } | null = null;
  for (const e of visible.edges) {
    const [from, to] = where === "producer" ? [e.target, e.source] : [e.source, e.target];
    if (!inside.has(from) || inside.has(to)) continue;
    const port = Math.min(...e.edges.map((i) => index.edges[i]?.target_input ?? 0));
    // The producer of the first input read; the consumer that runs first.
    const key = where === "producer" ? order(from) : order(to);
    if (best === null || key < best.key || (key === best.key && port < best.port)) best = { id: to, key, port };
  }
  return best?.id ?? null;
}

function sibling(visible: VisibleGraph, owner: string, step: 1 | -1): string | null {
  const item = visible.items.get(owner);
  const parent = item !== undefined ? item.container : (visible.containers.get(owner)?.parent ?? null);
  if (parent === null) return null;
  const members = visible.containers.get(parent)?.members ?? [];
  const at = members.indexOf(owner);
  if (at < 0) return null;
  return members[at + step] ?? null;
}
