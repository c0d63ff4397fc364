/**
 * From the visible graph to a layout request: every item's and header's look (text measured),
 * so Graphviz is given the sizes the view will draw, and each edge's shape label.
 */
import { buildLayoutGraph } from "../layout/request";
import type { LayoutGraph } from "../layout/types";
import type { GraphIndex } from "../model/document";
import { formatShapes } from "../model/format";
import type { VisibleContainer, VisibleEdge, VisibleGraph, VisibleItem } from "../model/visible";
import { HEADER_HEIGHT, headerLook, itemLook, type Look, type TextLine } from "./looks";
import type { Measure } from "./measure";

export interface SizedGraph {
  readonly graph: LayoutGraph;
  readonly looks: ReadonlyMap<string, Look>;
  /** Header lines of each open module. */
  readonly headers: ReadonlyMap<string, readonly TextLine[]>;
}

type HeaderLook = ReturnType<typeof headerLook>;

/**
 * Looks already measured with one measure, by the visible graph's objects: node items are one
 * object per node across states, and a graph updated after a +/− keeps the objects of all it
 * did not change (visible.ts).
 */
interface Measured {
  readonly items: WeakMap<VisibleItem, Look>;
  /** Header looks by index, then by container id, peek and run (all a header depends on besides the document). */
  readonly headers: WeakMap<GraphIndex, Map<string, HeaderLook>>;
  readonly containers: WeakMap<VisibleContainer, HeaderLook>;
}

// An edge's label depends on its tensors alone, and edges are kept across a +/− as items are.
const labelOf = new WeakMap<VisibleEdge, string>();

function label(e: VisibleEdge): string {
  let text = labelOf.get(e);
  if (text === undefined) {
    text = formatShapes(e.tensors);
    labelOf.set(e, text);
  }
  return text;
}

// A click sizes the whole visible graph again: what did not change is not measured again.
const measuredBy = new WeakMap<Measure, Measured>();

export function sizeVisibleGraph(index: GraphIndex, visible: VisibleGraph, measure: Measure): SizedGraph {
  let measured = measuredBy.get(measure);
  if (measured === undefined) {
    measured = { items: new WeakMap(), headers: new WeakMap(), containers: new WeakMap() };
    measuredBy.set(measure, measured);
  }
  let headerCache = measured.headers.get(index);
  if (headerCache === undefined) {
    headerCache = new Map();
    measured.headers.set(index, headerCache);
  }
  const paths = (ids: readonly string[]): string[] => ids.map((m) => index.modules.get(m)?.path ?? m);
  const looks = new Map<string, Look>();
  for (const item of visible.items.values()) {
    let look = measured.items.get(item);
    if (look === undefined) {
      look = itemLook(item, paths, measure);
      measured.items.set(item, look);
    }
    looks.set(item.id, look);
  }
  const headers = new Map<string, readonly TextLine[]>();
  const headerSizes = new Map<string, HeaderLook>();
  for (const c of visible.containers.values()) {
    let h = measured.containers.get(c);
    if (h === undefined) {
      const key = `${c.id}|${c.peek}|${c.run}`;
      h = headerCache.get(key);
      if (h === undefined) {
        h = headerLook(c, measure);
        headerCache.set(key, h);
      }
      measured.containers.set(c, h);
    }
    headers.set(c.id, h.lines);
    headerSizes.set(c.id, h);
  }
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
    label,
  );
  return { graph, looks, headers };
}
