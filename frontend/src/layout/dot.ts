/**
 * DOT text for one open module's own layout. Names are canonical (element k, port k), never
 * ids from the document, so structurally identical modules give identical DOT text: the text
 * is the cache key that lets 24 identical transformer blocks be laid out once. No label text
 * from the model ever reaches Graphviz: nodes are fixed-size empty boxes drawn by the view.
 */

/** Graphviz works in inches; the viewer in CSS pixels at 72 per inch (1 px = 1 pt). */
export const POINTS_PER_INCH = 72;

export interface LocalElement {
  readonly width: number;
  readonly height: number;
  /** An open module: its own contents continue its edges at its top and bottom borders. */
  readonly open?: boolean;
}

export interface LocalEdge {
  readonly from: string;
  readonly to: string;
  /** Edge label (already ASCII-safe, see dotLabel), or "" for none. */
  readonly label: string;
  /**
   * Into (out of) an open element: the field of its top (bottom) border the edge meets it at
   * (see borderField), above (below) the element's own entry (exit) port; its centre if absent.
   */
  readonly headField?: number;
  readonly tailField?: number;
}

/** Width of a field of an open element's border, in points (see fieldCount). */
export const FIELD_WIDTH = 16;

/**
 * An open element is a record of equal fields side by side, so that an edge can meet its top or
 * bottom border at a field (DOT's `port:compass`) rather than only at its centre.
 */
export function fieldCount(width: number): number {
  return Math.max(3, Math.min(36, Math.round(width / FIELD_WIDTH)));
}

/**
 * The field of an open element of `width` whose border is nearest to `x` (from its left edge),
 * keeping clear of the header's controls (`control` wide at the right end of the top border).
 */
export function borderField(width: number, x: number, top: boolean, control: number): number {
  const fields = fieldCount(width);
  const limit = top ? Math.max(width / 2, width - control) : width;
  const at = Math.min(Math.max(x, 0), limit);
  return Math.min(fields - 1, Math.max(0, Math.floor((at / width) * fields)));
}

/** The x of the centre of `field` of an open element of `width` (from its left edge). */
export function fieldCentre(width: number, field: number): number {
  return ((field + 0.5) * width) / fieldCount(width);
}

/**
 * Two open elements of about the same width joined by an edge whose two fields are not above one
 * another (a stack of identical layers, each leaving at its exit field and entering the next at
 * its entry field) are also joined by an invisible edge between their centres, of this weight,
 * which keeps the stack aligned. Graphviz lines each edge's two fields up, so without it every
 * layer of the stack shifted by the distance between the fields: a 40-layer Llama drifted 407
 * points per layer, 16,600 points in all. The edge itself keeps its fields and its pull, so that
 * Graphviz places its label node between its ends. (Routing it with `constraint=false` and
 * letting only the invisible edge place the pair cost nothing, but left that label node free: the
 * edge swung out and back around it, 100 px to the side on the demo model.) The invisible edge
 * costs time: a fully open GPT-2's root layout took 126 ms without it and 200 ms with it (Node).
 */
export const ALIGN_WEIGHT = 8;
/** Widths within this ratio count as "about the same" for ALIGN_WEIGHT. */
export const ALIGN_WIDTH_RATIO = 1.25;
/** The `comment` of those invisible edges: not an index into LocalGraph.edges. */
export const ALIGN_COMMENT = "align";

/** Graphviz makes a record one point taller than asked: asked one point less, it is exact. */
const RECORD_EXTRA_HEIGHT = 1;

export interface LocalGraph {
  /** Elements e0..eN in member order. */
  readonly elements: readonly LocalElement[];
  /** Number of entry ports (i0..) and exit ports (o0..). */
  readonly inPorts: number;
  readonly outPorts: number;
  /** Edges between canonical names: e3, i0, o1. */
  readonly edges: readonly LocalEdge[];
  /**
   * A segment or a container of segments (segments.ts): each element joined to the next by an edge is also centred on it
   * (an invisible edge of ALIGN_WEIGHT), whatever their widths, so the stack stays one column
   * and a box that narrows on a click neither pulls its neighbour sideways nor widens the
   * segment (see spines.ts).
   */
  readonly stack?: boolean;
  /** Elements drawn on the bottom rank (see outcomes); none if absent. */
  readonly bottom?: readonly number[];
  /** Elements ranked right above the element they feed (see leads); none if absent. */
  readonly leads?: readonly number[];
  /**
   * An open element that feeds only one open element, the only one feeding it, is centred on it
   * (an invisible edge of ALIGN_WEIGHT) whatever their widths and fields (see soleOpenPairs): lined
   * up by the edge between them, Whisper's encoder stood over the decoder's entry field, far right
   * of the decoder's centre, and left a column of the encoder's height empty beside it.
   */
  readonly centred?: boolean;
}

const inches = (px: number): string => (px / POINTS_PER_INCH).toFixed(4);

/** The index of element `ek` in LocalGraph.elements, from its canonical name; -1 for a port. */
export function elementIndex(name: string): number {
  return name.startsWith("e") ? Number(name.slice(1)) : -1;
}

/**
 * Label text for Graphviz to size: the drawn text with × written as x (Graphviz measures
 * ASCII with its built-in Helvetica metrics) and anything but letters, digits, spaces and
 * `,.:-` replaced, then quoted. Shapes are numbers, so nothing of meaning is lost.
 */
export function dotLabel(text: string): string {
  const ascii = text.replace(/×/g, "x").replace(/[^A-Za-z0-9 ,.:\-]/g, "_");
  return `"${ascii}"`;
}

/** DOT text of `graph`; edges whose index is in `without` are left out (drawn by the engine). */
export function toDot(graph: LocalGraph, without: ReadonlySet<number> = new Set()): string {
  const lines: string[] = [
    "digraph{",
    "graph[rankdir=TB,nodesep=0.22,ranksep=0.28,margin=0];",
    'node[shape=box,fixedsize=true,label=""];',
    // Labels are drawn at 9px; Graphviz sizes them at 10pt Helvetica to leave a margin.
    "edge[arrowhead=none,fontname=Helvetica,fontsize=10];",
  ];
  graph.elements.forEach((e, i) => {
    if (e.open === true) {
      const fields = Array.from({ length: fieldCount(e.width) }, (_, f) => `<p${f}>`).join("|");
      lines.push(`e${i}[shape=record,label="${fields}",width=${inches(e.width)},` +
        `height=${inches(e.height - RECORD_EXTRA_HEIGHT)}];`);
    } else {
      lines.push(`e${i}[width=${inches(e.width)},height=${inches(e.height)}];`);
    }
  });
  const port = "[shape=point,width=0.03,height=0.03]";
  if (graph.inPorts > 0) {
    const names = Array.from({ length: graph.inPorts }, (_, i) => `i${i}${port}`);
    lines.push(`{rank=source;${names.join(";")}}`);
  }
  if (graph.outPorts > 0) {
    const names = Array.from({ length: graph.outPorts }, (_, i) => `o${i}${port}`);
    lines.push(`{rank=sink;${names.join(";")}}`);
  } else if (graph.bottom !== undefined && graph.bottom.length > 0) {
    lines.push(`{rank=sink;${graph.bottom.map((i) => `e${i}`).join(";")}}`);
    lines.push(...sideRows(graph, graph.bottom));
  }
  // Graphviz lists edges by tail node, not in declaration order: `comment` carries the index.
  // Edges leave an open module from its bottom and enter it from its top, where its contents
  // continue them (Graphviz would otherwise clip them at any side of the box): at the field
  // above (below) the module's own port, so that they cross its border straight.
  const isOpen = (name: string): boolean => graph.elements[elementIndex(name)]?.open === true;
  // An edge to the bottom rank does not pull its producer over the output it reaches (see outcomes).
  const bottom = new Set((graph.bottom ?? []).map((i) => `e${i}`));
  // An element a lead feeds is two ranks below its open producers, the lead alone between (see leads).
  const leads = new Set((graph.leads ?? []).map((i) => `e${i}`));
  const fed = new Set(graph.edges.flatMap((e) => (leads.has(e.from) ? [e.to] : [])));
  const pairs = graph.centred === true ? soleOpenPairs(graph.edges, isOpen) : new Set<string>();
  const aligned = new Set<string>();
  const alignments: string[] = [];
  graph.edges.forEach((e, k) => {
    if (without.has(k)) return;
    const attrs = [`comment=${k}`];
    if (isOpen(e.from)) attrs.push(e.tailField === undefined ? "tailport=s" : `tailport="p${e.tailField}:s"`);
    if (isOpen(e.to)) attrs.push(e.headField === undefined ? "headport=n" : `headport="p${e.headField}:n"`);
    if (e.label !== "") attrs.push(`label=${e.label}`);
    if (bottom.has(e.to)) attrs.push("weight=0");
    if (fed.has(e.to) && isOpen(e.from)) attrs.push("minlen=2");
    const pair = `${e.from}->${e.to}`;
    lines.push(`${pair}[${attrs.join(",")}];`);
    if (!aligned.has(pair) && (drifts(graph, e) || (graph.stack === true && stacked(e)) || pairs.has(pair))) {
      aligned.add(pair);
      alignments.push(`${pair}[style=invis,weight=${ALIGN_WEIGHT},tailport=s,headport=n,comment=${ALIGN_COMMENT}];`);
    }
  });
  lines.push(...alignments, "}");
  return lines.join("\n");
}

/**
 * The pairs `ea->eb` of open elements where `eb` is the only open element `ea` feeds and `ea` the
 * only one that feeds `eb` (an encoder and its decoder): centring a module on several others (a
 * Llama's rotary embedding on every layer) would pull them into a zigzag.
 */
function soleOpenPairs(edges: readonly LocalEdge[], isOpen: (name: string) => boolean): Set<string> {
  const tos = new Map<string, Set<string>>();
  const froms = new Map<string, Set<string>>();
  for (const e of edges) {
    if (!isOpen(e.from) || !isOpen(e.to) || e.from === e.to) continue;
    tos.set(e.from, (tos.get(e.from) ?? new Set()).add(e.to));
    froms.set(e.to, (froms.get(e.to) ?? new Set()).add(e.from));
  }
  const pairs = new Set<string>();
  for (const [from, to] of tos) {
    const [only] = to;
    if (to.size === 1 && only !== undefined && froms.get(only)?.size === 1) pairs.add(`${from}->${only}`);
  }
  return pairs;
}

/** Whether `e` joins an element to the one after it. */
function stacked(e: LocalEdge): boolean {
  const from = elementIndex(e.from);
  return from >= 0 && elementIndex(e.to) === from + 1;
}

/**
 * Whether `e` joins two open elements of about the same width at fields more than a field apart
 * (measured from each element's centre): lined up by them, the second would shift sideways.
 */
function drifts(graph: LocalGraph, e: LocalEdge): boolean {
  const from = graph.elements[elementIndex(e.from)];
  const to = graph.elements[elementIndex(e.to)];
  if (from?.open !== true || to?.open !== true || e.tailField === undefined || e.headField === undefined) return false;
  if (Math.max(from.width, to.width) > ALIGN_WIDTH_RATIO * Math.min(from.width, to.width)) return false;
  const out = fieldCentre(from.width, e.tailField) - from.width / 2;
  const into = fieldCentre(to.width, e.headField) - to.width / 2;
  return Math.abs(out - into) > FIELD_WIDTH;
}

/**
 * The closed elements that some edge reaches and none leaves (in the root: the model's outputs),
 * when the layout has no exit ports, in a weakly connected part that holds an open element (the
 * largest part when none is open). Graphviz ranks each right below its producer, where it
 * stands beside the next tall element (T5's encoder output beside the whole decoder) and widens
 * the layout by its width for that element's height; on the bottom rank it widens only that rank.
 */
export function outcomes(elements: readonly LocalElement[], edges: readonly LocalEdge[], outPorts: number): number[] {
  if (outPorts > 0) return [];
  const part = components(elements.length, edges);
  const size = new Map<number, number>();
  const holdsOpen = new Set<number>();
  part.forEach((c, i) => {
    size.set(c, (size.get(c) ?? 0) + 1);
    if (elements[i]?.open === true) holdsOpen.add(c);
  });
  const largest = Math.max(0, ...size.values());
  // The dead end of a part without the open modules (BERT's attention_mask, read only by
  // transformers' test whether it is all ones) stays with its part at the top: on the bottom rank
  // it pulled that part down beside the encoder, its input halfway down the model.
  const main = (c: number): boolean => (holdsOpen.size > 0 ? holdsOpen.has(c) : size.get(c) === largest);
  return closedEnds(elements, edges, "sinks").filter((i) => main(part[i] as number));
}

/** A part of a graph with no outcome (see outcomes) of at most this many elements is drawn as one row. */
export const SIDE_ROW = 4;

/**
 * Where the parts of `graph` with no element on the `bottom` rank go. Graphviz joins such a part
 * to the bottom rank only by edges of its own of weight 0 (from each dead end), which left it
 * anywhere down the model, its ranks as tall as the modules beside them: BERT's attention_mask
 * stood halfway down beside the encoder, `to` and `all` below it. A small part is one row on the
 * top rank, beside the model's inputs (attention_mask → to → all); a larger one has its leads there.
 */
function sideRows(graph: LocalGraph, bottom: readonly number[]): string[] {
  const part = components(graph.elements.length, graph.edges);
  const ending = new Set(bottom.map((i) => part[i]));
  const members = new Map<number, Set<number>>();
  for (const e of graph.edges) {
    for (const i of [elementIndex(e.from), elementIndex(e.to)]) {
      const c = part[i];
      if (c === undefined || ending.has(c)) continue;
      members.set(c, (members.get(c) ?? new Set()).add(i));
    }
  }
  const leads = new Set(graph.leads ?? []);
  const row = (list: readonly number[]): boolean => list.length <= SIDE_ROW && list.every((i) => graph.elements[i]?.open !== true);
  const top = [...members.values()].flatMap((set) => {
    const list = [...set];
    return row(list) ? list : list.filter((i) => leads.has(i));
  });
  return top.length === 0 ? [] : [`{rank=min;${top.sort((a, b) => a - b).map((i) => `e${i}`).join(";")}}`];
}

/** Each element's weakly connected part (the smallest element index in it); ports join nothing. */
function components(count: number, edges: readonly LocalEdge[]): number[] {
  const parent = Array.from({ length: count }, (_, i) => i);
  const find = (i: number): number => {
    let r = i;
    while (parent[r] !== r) r = parent[r] as number;
    while (parent[i] !== r) [parent[i], i] = [r, parent[i] as number];
    return r;
  };
  for (const e of edges) {
    const [a, b] = [elementIndex(e.from), elementIndex(e.to)];
    if (a < 0 || b < 0 || a >= count || b >= count) continue;
    const [ra, rb] = [find(a), find(b)];
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
  return parent.map((_, i) => find(i));
}

/**
 * The closed elements that some edge leaves and none reaches (in the root: the model's inputs),
 * when the layout has no entry ports. Graphviz ranks each right above the element it feeds, which
 * is the rank of that element's other producers: beside a tall one (T5's and Whisper's
 * decoder_input_ids beside the whole encoder, whose output the decoder also takes), where it and
 * its edge push that producer sideways and leave a column of its height empty. Two ranks below
 * its open producers, the element it feeds has a rank of its own above it for its leads (not
 * below a closed one, where the extra rank would only lengthen the graph).
 */
export function leads(elements: readonly LocalElement[], edges: readonly LocalEdge[], inPorts: number): number[] {
  return inPorts > 0 ? [] : closedEnds(elements, edges, "sources");
}

/** The closed elements that edges only reach ("sinks") or only leave ("sources"). */
function closedEnds(elements: readonly LocalElement[], edges: readonly LocalEdge[], ends: "sinks" | "sources"): number[] {
  const reached = new Set<number>();
  const left = new Set<number>();
  for (const e of edges) {
    reached.add(elementIndex(e.to));
    left.add(elementIndex(e.from));
  }
  const [end, other] = ends === "sinks" ? [reached, left] : [left, reached];
  return elements.flatMap((e, i) => (e.open !== true && end.has(i) && !other.has(i) ? [i] : []));
}
