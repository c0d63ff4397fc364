/**
 * Hierarchical layout: every open module is laid out on its own by Graphviz (its members,
 * with open children as fixed-size blocks and entry/exit ports for edges crossing its
 * border), then the pieces are composed top-down. Local layouts are cached by their DOT text,
 * so identical modules (GPT-2's 24 blocks) cost one Graphviz run. Runs in the worker or,
 * as a fallback, on the page; it has no DOM and no Graphviz of its own (`render` is given).
 *
 * One request goes through four steps: route (route.ts: each edge into local edges of the
 * containers it crosses), measure (here: each container's own layout, innermost first),
 * place and stitch (compose.ts: absolute positions, each edge's pieces joined). Routing and
 * measuring redo only the containers the request changed since the last one (reuse.ts).
 */
import { addArcs, arcEdges } from "./arcs";
import { bundle, BUNDLE_MIN } from "./bundles";
import { place, stitch } from "./compose";
import { labelWidth, localLabels } from "./labels";
import { borderField, dotLabel, elementIndex, fieldCentre, fieldCount, leads, outcomes, toDot, type LocalEdge, type LocalElement } from "./dot";
import { parseGraphvizJson, type GraphvizLayout } from "./graphviz";
import { packParts, unpackResult, type PackedResult } from "./packed";
import { KeptLayout } from "./reuse";
import { segmentGraph } from "./segments";
import { alignSegments, spineOf } from "./spines";
import { straighten } from "./straight";
import { shortened, stretched } from "./tall";
import { sizeOf, workOf, type LayoutTree, type Work } from "./tree";
import type { LayoutGraph, LayoutResult } from "./types";

/** Renders DOT text to Graphviz `json0` text (with y pointing down). */
export type RenderDot = (dot: string) => string;

/** Inner margin of an open module box around its contents. */
export const CONTAINER_PADDING = 14;

export class LayoutEngine {
  private readonly cache = new Map<string, GraphvizLayout>();
  /** The tree and routes of the last request, so that the next one redoes only the containers it changes (reuse.ts). */
  private readonly kept = new KeptLayout();
  /**
   * Each container's local layout, and what it was made from: a container measured again with
   * the same inputs is not even written as DOT (which, with bundling and reading the cached
   * layout back, cost about 40 µs per container).
   */
  private readonly measured = new Map<string, { readonly inputs: LocalInputs; readonly local: GraphvizLayout }>();
  private runs = 0;
  private hits = 0;

  constructor(private readonly render: RenderDot) {}

  /** Number of distinct local layouts kept. */
  get cacheSize(): number {
    return this.cache.size;
  }

  layout(request: LayoutGraph): LayoutResult {
    return unpackResult(this.layoutPacked(request).packed);
  }

  /** The layout of `request` packed for the trip to the page (packed.ts), and the buffers to transfer with it. */
  layoutPacked(request: LayoutGraph): { packed: PackedResult; transfer: ArrayBuffer[] } {
    const started = now();
    this.runs = 0;
    this.hits = 0;
    const { graph, segments } = segmentGraph(request);
    const { tree, routes, measure, removed } = this.kept.update(graph, segments);
    for (const id of removed) this.measured.delete(id);
    for (const id of innermostFirst(tree, measure)) this.measure(tree, id);
    const { rects, width, height, origins } = place(tree, segments);
    const edges = stitch(tree, routes, origins);
    const stats = { graphvizRuns: this.runs, cacheHits: this.hits, milliseconds: now() - started };
    return packParts({ width, height, stats }, rects, edges);
  }

  /** Lays out container `id` on its own (its open children are measured already) and sizes its block. */
  private measure(tree: LayoutTree, id: string): void {
    const w = workOf(tree, id);
    const elements: LocalElement[] = w.spec.members.map((m) => {
      const child = tree.work.get(m);
      return child !== undefined ? { width: child.width, height: child.height, open: true } : sizeOf(tree, m);
    });
    const edges: LocalEdge[] = w.edges.map((e) => {
      const to = e.to.split("\u0000")[0] as string;
      const headField = borderFieldOf(tree, w, to, e.source, "i");
      const tailField = borderFieldOf(tree, w, e.from, e.source, "o");
      return {
        from: e.from,
        to,
        label: e.labels.length === 0 ? "" : dotLabel(e.labels.join(", ")),
        ...(headField === undefined ? {} : { headField }),
        ...(tailField === undefined ? {} : { tailField }),
      };
    });
    const ofSegments = w.spec.members.some((m) => tree.segments.has(m));
    const spines = ofSegments ? w.spec.members.map((m) => tree.work.get(m)?.spine ?? 0) : [];
    const inputs: LocalInputs = { elements, edges, inPorts: w.inPorts.size, outPorts: w.outPorts.size, ends: endsKey(w), spines };
    const before = this.measured.get(id);
    let local: GraphvizLayout;
    if (before !== undefined && sameInputs(before.inputs, inputs)) {
      this.hits++;
      local = before.local;
    } else {
      const bundled = bundle(inputs.inPorts, inputs.outPorts, edges, w.portEnds);
      // Only the root's outcomes are the model's outputs and its leads the model's inputs: elsewhere
      // a dead end stays by its producer and a parameter beside the op it feeds. Only in the root
      // does centring an encoder on its decoder outweigh lining up the edge between them.
      const bottom = id === tree.root ? outcomes(elements, edges, inputs.outPorts) : [];
      const top = id === tree.root ? leads(elements, edges, inputs.inPorts) : [];
      local = bundled.expand(this.localLayout(elements, bundled.inPorts, bundled.outPorts, bundled.edges, ofSegments, ofSegments || tree.segments.has(id), bottom, top, id === tree.root));
      if (ofSegments) local = alignSegments(local, elements.map((e, i) => ({ width: e.width, height: e.height, spine: spines[i] as number })), edges.map(labelWidth));
    }
    this.measured.set(id, { inputs, local });
    w.local = local;
    // The layout is centred in the block, moved right when an entry port lies under the
    // header's text and widened on the right when one lies under its controls: the edge to it
    // then crosses the header straight, between them. A segment has no border, header or
    // control of its own (see segments.ts).
    const padding = tree.segments.has(id) ? 0 : CONTAINER_PADDING;
    const centred = Math.max(w.spec.minWidth, local.width + 2 * padding);
    w.inset = Math.max((centred - local.width) / 2, (w.spec.title ?? 0) - leftmostEntry(local, w.inPorts.size));
    const width = Math.max(centred, w.inset + local.width + padding);
    w.width = width + controlClearance(width, w.inset, local, w.inPorts.size, w.spec.control);
    if (!tree.segments.has(id)) w.inset += fieldShift(w, local);
    w.height = w.spec.header + local.height + padding;
    if (tree.segments.has(id)) w.spine = w.inset + (ofSegments ? segmentsSpine(local, elements[0], spines[0]) : spineOf(local, elements.length));
  }

  /** One container's own layout, from the cache when the same DOT was laid out before. */
  private localLayout(elements: readonly LocalElement[], inPorts: number, outPorts: number, edges: readonly LocalEdge[], ofSegments: boolean, stack: boolean, bottom: readonly number[], top: readonly number[], centred: boolean): GraphvizLayout {
    if (elements.length === 0 && inPorts === 0 && outPorts === 0) return { width: 0, height: 0, nodes: new Map(), edges: [] };
    const graph = { elements, inPorts, outPorts, edges, stack, bottom, leads: top, centred };
    const dot = toDot(graph);
    const short = ofSegments ? shortened(elements) : null;
    const key = short === null ? dot : `short\n${dot}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) {
      this.hits++;
      return cached;
    }
    // Long edges of a costly layout are drawn as arcs, without Graphviz (see arcs.ts).
    const arcs = arcEdges(elements.length, inPorts, outPorts, edges);
    // A container of segments is laid out with its tall elements short (see tall.ts).
    const laid =
      (short === null ? null : stretched(parseGraphvizJson(this.render(toDot({ ...graph, elements: short }, arcs))), elements, short)) ??
      parseGraphvizJson(this.render(arcs.size === 0 ? dot : toDot(graph, arcs)));
    const local = localLabels(straighten(addArcs(laid, elements, edges, arcs), elements, edges), elements, edges);
    this.cache.set(key, local);
    this.runs++;
    return local;
  }

}

/** What a container's own layout is made from (its DOT text says the same, at more cost). */
interface LocalInputs {
  readonly elements: readonly LocalElement[];
  readonly edges: readonly LocalEdge[];
  readonly inPorts: number;
  readonly outPorts: number;
  /** Where the edges through its ports come from and go to, when there are enough of them to bundle. */
  readonly ends: string;
  /** Of a container of segments: each segment's spine (see spines.ts). */
  readonly spines: readonly number[];
}

/** The spine of a container of segments laid out by alignSegments: that of its first segment. */
function segmentsSpine(local: GraphvizLayout, first: LocalElement | undefined, spine: number | undefined): number {
  const at = local.nodes.get("e0");
  return at === undefined || first === undefined ? local.width / 2 : at.x - first.width / 2 + (spine ?? 0);
}

function endsKey(w: Work): string {
  if (w.inPorts.size < BUNDLE_MIN && w.outPorts.size < BUNDLE_MIN) return "";
  const parts: string[] = [];
  for (const [port, ends] of w.portEnds) parts.push(`${port}:${[...ends].sort().join("\u0001")}`);
  return parts.sort().join("\u0002");
}

function sameInputs(a: LocalInputs, b: LocalInputs): boolean {
  if (a.inPorts !== b.inPorts || a.outPorts !== b.outPorts || a.ends !== b.ends) return false;
  if (a.elements.length !== b.elements.length || a.edges.length !== b.edges.length || a.spines.length !== b.spines.length) return false;
  for (let i = 0; i < a.spines.length; i++) if (a.spines[i] !== b.spines[i]) return false;
  for (let i = 0; i < a.elements.length; i++) {
    const x = a.elements[i] as LocalElement;
    const y = b.elements[i] as LocalElement;
    if (x.width !== y.width || x.height !== y.height || (x.open === true) !== (y.open === true)) return false;
  }
  for (let i = 0; i < a.edges.length; i++) {
    const x = a.edges[i] as LocalEdge;
    const y = b.edges[i] as LocalEdge;
    if (x.from !== y.from || x.to !== y.to || x.label !== y.label || x.headField !== y.headField || x.tailField !== y.tailField) return false;
  }
  return true;
}

/** Containers `ids` of `tree` ordered deepest first, so each is measured after its open children. */
function innermostFirst(tree: LayoutTree, ids: ReadonlySet<string>): string[] {
  // Each depth from its parent's, walking up only to the nearest known one: linear in all.
  const depths = new Map<string, number>();
  for (const id of ids) {
    const unknown: string[] = [];
    let at: string | undefined = id;
    while (at !== undefined && !depths.has(at)) {
      unknown.push(at);
      at = tree.parentOf.get(at);
    }
    let d = at === undefined ? 0 : (depths.get(at) as number);
    for (let k = unknown.length - 1; k >= 0; k--) depths.set(unknown[k] as string, ++d);
  }
  return [...ids].sort((a, b) => (depths.get(b) ?? 0) - (depths.get(a) ?? 0));
}

/**
 * The field of open element `name` of `w` at which an edge carrying `source` enters (`i`) or
 * leaves (`o`) it: above (below) the element's own port for that value; undefined for a
 * closed element.
 */
function borderFieldOf(tree: LayoutTree, w: Work, name: string, source: string, kind: "i" | "o"): number | undefined {
  const child = tree.work.get(w.spec.members[elementIndex(name)] ?? "");
  if (child?.local == null) return undefined;
  const k = (kind === "i" ? child.inPorts : child.outPorts).get(source);
  const at = k === undefined ? undefined : child.local.nodes.get(`${kind}${k}`);
  return at === undefined ? undefined : borderField(child.width, child.inset + at.x, kind === "i", child.spec.control);
}

/**
 * How far to move container `w`'s own layout sideways in its block (keeping at least half its
 * padding, its entry ports between the header's text and its controls) so that most of its ports
 * lie at the centre of a border field: its parent joins an edge to it at the centre of the field
 * nearest to the port, and stitching then bends the edge over to the port, up to half a field at
 * every border a chain of modules crosses.
 */
function fieldShift(w: Work, local: GraphvizLayout): number {
  const ports: { x: number; top: boolean }[] = [];
  for (let k = 0; k < w.inPorts.size; k++) {
    const at = local.nodes.get(`i${k}`);
    if (at !== undefined) ports.push({ x: w.inset + at.x, top: true });
  }
  for (let k = 0; k < w.outPorts.size; k++) {
    const at = local.nodes.get(`o${k}`);
    if (at !== undefined) ports.push({ x: w.inset + at.x, top: false });
  }
  if (ports.length === 0) return 0;
  const field = w.width / fieldCount(w.width);
  const margin = CONTAINER_PADDING / 2;
  const entries = ports.filter((p) => p.top).map((p) => p.x);
  const low = Math.max(margin - w.inset, (w.spec.title ?? 0) - Math.min(...entries));
  const high = Math.min(w.width - margin - w.inset - local.width, w.width - w.spec.control - Math.max(...entries));
  const centred = (s: number): number =>
    ports.filter((p) => Math.abs(fieldCentre(w.width, borderField(w.width, p.x + s, p.top, w.spec.control)) - p.x - s) < 0.25).length;
  let best = 0;
  let most = centred(0);
  for (const p of ports) {
    const f = borderField(w.width, p.x, p.top, w.spec.control);
    for (const k of [f - 1, f, f + 1]) {
      const s = fieldCentre(w.width, k) - p.x;
      if (s < low || s > high || Math.abs(s) > field) continue;
      const n = centred(s);
      if (n > most || (n === most && Math.abs(s) < Math.abs(best))) [best, most] = [s, n];
    }
  }
  return best;
}

/** The x of the leftmost entry port i0..i(n-1) of `local`; +Infinity when it has none. */
function leftmostEntry(local: GraphvizLayout, inPorts: number): number {
  let left = Infinity;
  for (let k = 0; k < inPorts; k++) left = Math.min(left, local.nodes.get(`i${k}`)?.x ?? Infinity);
  return left;
}

/**
 * How much wider than `width` a container must be for its entry ports i0..i(n-1), `inset` right
 * of its left edge, to lie left of the header's controls (`control` wide at its right end).
 */
function controlClearance(width: number, inset: number, local: GraphvizLayout, inPorts: number, control: number): number {
  if (control <= 0) return 0;
  let right = -Infinity;
  for (let k = 0; k < inPorts; k++) right = Math.max(right, local.nodes.get(`i${k}`)?.x ?? -Infinity);
  return Math.max(0, inset + right - (width - control));
}

function now(): number {
  return typeof performance !== "undefined" ? performance.now() : Date.now();
}
