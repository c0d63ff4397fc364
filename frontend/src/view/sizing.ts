/**
 * From the visible graph to a layout request: every item's and header's look (text measured),
 * so Graphviz is given the sizes the view will draw, and each edge's shape label.
 */
import { buildLayoutGraph } from "../layout/request";
import type { LayoutGraph } from "../layout/types";
import type { GraphIndex } from "../model/document";
import { formatShapes } from "../model/format";
import type { VisibleGraph } from "../model/visible";
import { HEADER_HEIGHT, headerLook, itemLook, type Look, type TextLine } from "./looks";
import type { Measure } from "./measure";

export interface SizedGraph {
  readonly graph: LayoutGraph;
  readonly looks: ReadonlyMap<string, Look>;
  /** Header lines of each open module. */
  readonly headers: ReadonlyMap<string, readonly TextLine[]>;
}

export function sizeVisibleGraph(index: GraphIndex, visible: VisibleGraph, measure: Measure): SizedGraph {
  const paths = (ids: readonly string[]): string[] => ids.map((m) => index.modules.get(m)?.path ?? m);
  const looks = new Map<string, Look>();
  for (const item of visible.items.values()) looks.set(item.id, itemLook(item, paths, measure));
  const headers = new Map<string, readonly TextLine[]>();
  const headerSizes = new Map<string, { minWidth: number; control: number; title: number }>();
  for (const c of visible.containers.values()) {
    const h = headerLook(c, measure);
    headers.set(c.id, h.lines);
    headerSizes.set(c.id, h);
  }
  const labels = new Map(visible.edges.map((e) => [e.id, formatShapes(e.tensors)]));
  const graph = buildLayoutGraph(
    visible,
    {
      item: (id) => {
        const l = looks.get(id);
        return { width: l?.width ?? 40, height: l?.height ?? 24 };
      },
      header: (id) => {
        const h = headerSizes.get(id);
        return { height: HEADER_HEIGHT, minWidth: h?.minWidth ?? 100, control: h?.control ?? 0, title: h?.title ?? 0 };
      },
    },
    (id) => labels.get(id) ?? "",
  );
  return { graph, looks, headers };
}
