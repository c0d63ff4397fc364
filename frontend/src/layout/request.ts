/** Turning the visible graph (model layer) into a layout request, given each item's size. */
import type { VisibleEdge, VisibleGraph } from "../model/visible";
import type { LayoutGraph } from "./types";

export interface Sizer {
  item(id: string): { width: number; height: number };
  header(containerId: string): { height: number; minWidth: number; control: number; title?: number };
}

export function buildLayoutGraph(visible: VisibleGraph, sizer: Sizer, label: (edge: VisibleEdge) => string): LayoutGraph {
  const items = [...visible.items.keys()].map((id) => ({ id, ...sizer.item(id) }));
  const containers = [...visible.containers.values()].map((c) => {
    const h = sizer.header(c.id);
    return { id: c.id, parent: c.parent, members: c.members, header: h.height, minWidth: h.minWidth, control: h.control, title: h.title ?? 0 };
  });
  const root = visible.root ?? [...visible.items.keys()][0] ?? "";
  const edges = visible.edges.map((e) => ({ id: e.id, source: e.source, target: e.target, label: label(e) }));
  return { root, items, containers, edges };
}
