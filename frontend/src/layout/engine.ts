/**
 * Hierarchical layout: every open module is laid out on its own by Graphviz (its members,
 * with open children as fixed-size blocks and entry/exit ports for edges crossing its
 * border), then the pieces are composed top-down. Local layouts are cached by their DOT text,
 * so identical modules (GPT-2's 24 blocks) cost one Graphviz run. Runs in the worker or,
 * as a fallback, on the page; it has no DOM and no Graphviz of its own (`render` is given).
 */
import { addArcs, arcEdges } from "./arcs";
import { borderField, CONTROL_ZONE, dotLabel, elementIndex, toDot, type LocalEdge } from "./dot";
import { parseGraphvizJson, type GraphvizLayout } from "./graphviz";
import { segmentGraph } from "./segments";
import type { EdgeRoute, LayoutContainerSpec, LayoutGraph, LayoutResult, Point, Rect } from "./types";

/** Renders DOT text to Graphviz `json0` text (with y pointing down). */
export type RenderDot = (dot: string) => string;

/** Inner margin of an open module box around its contents. */
export const CONTAINER_PADDING = 14;

interface Piece {
  readonly container: string;
  readonly edge: number;
}

interface Work {
  readonly spec: LayoutContainerSpec;
  readonly elementIndex: Map<string, number>;
  readonly inPorts: Map<string, number>;
  readonly outPorts: Map<string, number>;
  /** Local edges; `source` is the value (its producing node) the edge carries. */
  readonly edges: { from: string; to: string; source: string; labels: string[] }[];
  readonly edgeIndex: Map<string, number>;
  local: GraphvizLayout | null;
  width: number;
  height: number;
  /** How far right of its block's left edge the container's own layout is drawn. */
  inset: number;
}

export class LayoutEngine {
  private readonly cache = new Map<string, GraphvizLayout>();

  constructor(private readonly render: RenderDot) {}

  /** Number of distinct local layouts kept. */
  get cacheSize(): number {
    return this.cache.size;
  }

  layout(request: LayoutGraph): LayoutResult {
    const started = now();
    const { graph, segments } = segmentGraph(request);
    let runs = 0;
    let hits = 0;
    const sizes = new Map<string, { width: number; height: number }>();
    for (const item of graph.items) sizes.set(item.id, { width: item.width, height: item.height });
    const parentOf = new Map<string, string>();
    const work = new Map<string, Work>();
    for (const c of graph.containers) {
      work.set(c.id, {
        spec: c,
        elementIndex: new Map(c.members.map((m, i) => [m, i])),
        inPorts: new Map(),
        outPorts: new Map(),
        edges: [],
        edgeIndex: new Map(),
        local: null,
        width: 0,
        height: 0,
        inset: 0,
      });
      for (const m of c.members) parentOf.set(m, c.id);
    }

    const ancestry = (id: string): string[] => {
      const chain = [id];
      let p = parentOf.get(id);
      while (p !== undefined) {
        chain.push(p);
        p = parentOf.get(p);
      }
      return chain;
    };
    // Every local edge that touches an open element carries one value (its `to`, or its port,
    // names the value), so the first route to make it names its source for all.
    const localEdge = (container: string, from: string, to: string, source: string, label: string): number => {
      const w = work.get(container) as Work;
      const key = `${from}\u0000${to}`;
      let index = w.edgeIndex.get(key);
      if (index === undefined) {
        index = w.edges.length;
        w.edges.push({ from, to, source, labels: [] });
        w.edgeIndex.set(key, index);
      }
      const entry = w.edges[index];
      if (entry !== undefined && label !== "" && !entry.labels.includes(label)) entry.labels.push(label);
      return index;
    };
    const element = (container: string, member: string): string =>
      `e${(work.get(container) as Work).elementIndex.get(member) ?? 0}`;
    const port = (container: string, kind: "i" | "o", source: string): string => {
      const w = work.get(container) as Work;
      const ports = kind === "i" ? w.inPorts : w.outPorts;
      let k = ports.get(source);
      if (k === undefined) {
        k = ports.size;
        ports.set(source, k);
      }
      return `${kind}${k}`;
    };

    // Route every visible edge through the containers between its ends.
    const routes: { id: string; pieces: Piece[]; labelPiece: Piece | null }[] = [];
    for (const e of graph.edges) {
      const up = ancestry(e.source);
      const down = ancestry(e.target);
      const downSet = new Set(down);
      const lcaIndex = up.findIndex((a, i) => i > 0 && downSet.has(a));
      if (lcaIndex < 0) continue;
      const lca = up[lcaIndex] as string;
      const lcaDown = down.indexOf(lca);
      const pieces: Piece[] = [];
      for (let i = 1; i < lcaIndex; i++) {
        const c = up[i] as string;
        pieces.push({ container: c, edge: localEdge(c, element(c, up[i - 1] as string), port(c, "o", e.source), e.source, "") });
      }
      const sourceChild = up[lcaIndex - 1] as string;
      const targetChild = down[lcaDown - 1] as string;
      const label = e.label === "" ? "" : e.label;
      // One local edge per (source child, target child, source): edges of one value share it.
      const fromName = element(lca, sourceChild);
      const toName = element(lca, targetChild);
      const lcaPiece: Piece = {
        container: lca,
        edge: localEdge(lca, fromName, `${toName}\u0000${e.source}`, e.source, label),
      };
      pieces.push(lcaPiece);
      for (let i = lcaDown - 1; i >= 1; i--) {
        const c = down[i] as string;
        pieces.push({ container: c, edge: localEdge(c, port(c, "i", e.source), element(c, down[i - 1] as string), e.source, "") });
      }
      routes.push({ id: e.id, pieces, labelPiece: label === "" ? null : lcaPiece });
    }

    // Bottom-up: lay out each container once its open children have sizes.
    // Each depth from its parent's, walking up only to the nearest known one: linear in all.
    const depths = new Map<string, number>();
    for (const id of work.keys()) {
      const unknown: string[] = [];
      let at: string | undefined = id;
      while (at !== undefined && !depths.has(at)) {
        unknown.push(at);
        at = parentOf.get(at);
      }
      let d = at === undefined ? 0 : (depths.get(at) as number);
      for (let k = unknown.length - 1; k >= 0; k--) depths.set(unknown[k] as string, ++d);
    }
    const order = [...work.keys()].sort((a, b) => (depths.get(b) ?? 0) - (depths.get(a) ?? 0));
    for (const id of order) {
      const w = work.get(id) as Work;
      const elements = w.spec.members.map((m) => {
        const child = work.get(m);
        if (child !== undefined) return { width: child.width, height: child.height, open: true };
        return sizes.get(m) ?? { width: 40, height: 24 };
      });
      // An edge into (out of) an open child meets its border above (below) the child's own port.
      const field = (name: string, source: string, kind: "i" | "o"): number | undefined => {
        const child = work.get(w.spec.members[elementIndex(name)] ?? "");
        if (child?.local == null) return undefined;
        const k = (kind === "i" ? child.inPorts : child.outPorts).get(source);
        const at = k === undefined ? undefined : child.local.nodes.get(`${kind}${k}`);
        return at === undefined ? undefined : borderField(child.width, child.inset + at.x, kind === "i");
      };
      const edges: LocalEdge[] = w.edges.map((e) => {
        const to = e.to.split("\u0000")[0] as string;
        const headField = field(to, e.source, "i");
        const tailField = field(e.from, e.source, "o");
        return {
          from: e.from,
          to,
          label: e.labels.length === 0 ? "" : dotLabel(e.labels.join(", ")),
          ...(headField === undefined ? {} : { headField }),
          ...(tailField === undefined ? {} : { tailField }),
        };
      });
      let local: GraphvizLayout;
      if (elements.length === 0 && w.inPorts.size === 0 && w.outPorts.size === 0) {
        local = { width: 0, height: 0, nodes: new Map(), edges: [] };
      } else {
        const graph = { elements, inPorts: w.inPorts.size, outPorts: w.outPorts.size, edges };
        const dot = toDot(graph);
        const cached = this.cache.get(dot);
        if (cached !== undefined) {
          local = cached;
          hits++;
        } else {
          // Long edges of a costly layout are drawn as arcs, without Graphviz (see arcs.ts).
          const arcs = arcEdges(elements.length, graph.inPorts, graph.outPorts, edges);
          local = addArcs(parseGraphvizJson(this.render(arcs.size === 0 ? dot : toDot(graph, arcs))), elements, edges, arcs);
          this.cache.set(dot, local);
          runs++;
        }
      }
      w.local = local;
      // The layout is centred in the block, which is widened on the right when an entry port
      // lies under the header's +/- control: the edge to it then crosses the header straight,
      // beside the control.
      // A segment has no border, header or control of its own (see segments.ts).
      const padding = segments.has(id) ? 0 : CONTAINER_PADDING;
      const width = Math.max(w.spec.minWidth, local.width + 2 * padding);
      w.inset = (width - local.width) / 2;
      w.width = width + (segments.has(id) ? 0 : controlClearance(width, w.inset, local, w.inPorts.size));
      w.height = w.spec.header + local.height + padding;
    }

    // Top-down: absolute positions.
    const rects: Record<string, Rect> = {};
    const origins = new Map<string, Point>();
    // With a stack of its own, not recursion: modules may nest 10,000 deep.
    const placing: [string, number, number][] = [[graph.root, 0, 0]];
    for (let next = placing.pop(); next !== undefined; next = placing.pop()) {
      const [id, x, y] = next;
      const w = work.get(id);
      if (w === undefined) {
        const s = sizes.get(id) ?? { width: 40, height: 24 };
        rects[id] = { x, y, width: s.width, height: s.height };
        continue;
      }
      rects[id] = { x, y, width: w.width, height: w.height };
      const local = w.local as GraphvizLayout;
      const ox = x + w.inset;
      const oy = y + w.spec.header;
      origins.set(id, { x: ox, y: oy });
      w.spec.members.forEach((m, i) => {
        const centre = local.nodes.get(`e${i}`) ?? { x: 0, y: 0 };
        const child = work.get(m);
        const size = child !== undefined ? { width: child.width, height: child.height } : (sizes.get(m) ?? { width: 40, height: 24 });
        placing.push([m, ox + centre.x - size.width / 2, oy + centre.y - size.height / 2]);
      });
    }

    const pieceInfo = (p: Piece): { points: Point[]; label: Point | null } => {
      const w = work.get(p.container) as Work;
      const o = origins.get(p.container) ?? { x: 0, y: 0 };
      const e = w.local?.edges[p.edge];
      if (e === undefined) return { points: [], label: null };
      return {
        points: e.points.map((q) => ({ x: q.x + o.x, y: q.y + o.y })),
        label: e.label === null ? null : { x: e.label.x + o.x, y: e.label.y + o.y },
      };
    };

    const labelsDrawn = new Set<string>();
    const edges: EdgeRoute[] = routes.map((r) => {
      const points: Point[] = [];
      for (const piece of r.pieces) {
        const next = pieceInfo(piece).points;
        if (next.length === 0) continue;
        const last = points[points.length - 1];
        const first = next[0] as Point;
        if (last === undefined) {
          points.push(...next);
          continue;
        }
        const dy = (first.y - last.y) / 2;
        points.push({ x: last.x, y: last.y + dy }, { x: first.x, y: first.y - dy }, first, ...next.slice(1));
      }
      let label: EdgeRoute["label"] = null;
      if (r.labelPiece !== null) {
        const key = `${r.labelPiece.container}#${r.labelPiece.edge}`;
        const info = pieceInfo(r.labelPiece);
        const w = work.get(r.labelPiece.container) as Work;
        const text = w.edges[r.labelPiece.edge]?.labels.join(", ") ?? "";
        if (info.label !== null && !labelsDrawn.has(key)) {
          labelsDrawn.add(key);
          label = { x: info.label.x, y: info.label.y, text };
        }
      }
      return { id: r.id, points, label };
    });

    for (const id of segments) delete rects[id];
    const rootRect = rects[graph.root] ?? { x: 0, y: 0, width: 0, height: 0 };
    return {
      width: rootRect.width,
      height: rootRect.height,
      rects,
      edges,
      stats: { graphvizRuns: runs, cacheHits: hits, milliseconds: now() - started },
    };
  }
}

/**
 * How much wider than `width` a container must be for its entry ports i0..i(n-1), `inset` right
 * of its left edge, to lie left of the header's +/- control (CONTROL_ZONE at its right end).
 */
function controlClearance(width: number, inset: number, local: GraphvizLayout, inPorts: number): number {
  let right = -Infinity;
  for (let k = 0; k < inPorts; k++) right = Math.max(right, local.nodes.get(`i${k}`)?.x ?? -Infinity);
  return Math.max(0, inset + right - (width - CONTROL_ZONE));
}

function now(): number {
  return typeof performance !== "undefined" ? performance.now() : Date.now();
}
