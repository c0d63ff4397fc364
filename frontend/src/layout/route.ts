/**
 * Routing: every visible edge becomes a chain of local edges, one per container between its
 * ends (out through exit ports up to the lowest common container, across it, in through entry
 * ports down to the target), so each container's own layout knows the edges it must draw.
 */
import { ancestry, workOf, type LayoutTree } from "./tree";
import type { LayoutEdgeSpec } from "./types";

/** One local edge of a route: the container it is drawn in and its index there. */
export interface Piece {
  readonly container: string;
  readonly edge: number;
}

export interface Route {
  readonly id: string;
  readonly pieces: readonly Piece[];
  /** The piece that carries the label (the one across the lowest common container). */
  readonly labelPiece: Piece | null;
}

// Every local edge that touches an open element carries one value (its `to`, or its port,
// names the value), so the first route to make it names its source for all.
function localEdge(tree: LayoutTree, container: string, from: string, to: string, source: string, label: string): number {
  const w = workOf(tree, container);
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
}

function element(tree: LayoutTree, container: string, member: string): string {
  return `e${workOf(tree, container).elementIndex.get(member) ?? 0}`;
}

/** Port of `container` for value `source`; `end` names where outside the container its edge starts or ends (see bundles.ts). */
function port(tree: LayoutTree, container: string, kind: "i" | "o", source: string, end: string): string {
  const w = workOf(tree, container);
  const ports = kind === "i" ? w.inPorts : w.outPorts;
  let k = ports.get(source);
  if (k === undefined) {
    k = ports.size;
    ports.set(source, k);
  }
  const name = `${kind}${k}`;
  const ends = w.portEnds.get(name);
  if (ends === undefined) w.portEnds.set(name, new Set([end]));
  else ends.add(end);
  return name;
}

/**
 * Where ancestries `up` and `down` (innermost first) meet: the indices in each of their lowest
 * common container, not the source itself; [-1, -1] when they do not meet.
 */
function lowestCommon(up: readonly string[], down: readonly string[]): [number, number] {
  // Both end at the root: walk down from there while they agree (no set per edge).
  let a = up.length - 1;
  let b = down.length - 1;
  if (a < 0 || b < 0 || up[a] !== down[b]) return [-1, -1];
  while (a > 1 && b > 0 && up[a - 1] === down[b - 1]) {
    a--;
    b--;
  }
  return a > 0 ? [a, b] : [-1, -1];
}

/** Where edge `e` runs: the ancestries of its ends and their lowest common container; null when they do not meet. */
function pathOf(tree: LayoutTree, e: LayoutEdgeSpec): { up: string[]; down: string[]; lcaIndex: number; lcaDown: number } | null {
  const up = ancestry(tree, e.source);
  const down = ancestry(tree, e.target);
  const [lcaIndex, lcaDown] = lowestCommon(up, down);
  return lcaIndex < 0 ? null : { up, down, lcaIndex, lcaDown };
}

/** The containers edge `e` has a piece in, as routeEdge would route it, without routing it. */
export function containersOf(tree: LayoutTree, e: LayoutEdgeSpec): string[] {
  const path = pathOf(tree, e);
  if (path === null) return [];
  return [...path.up.slice(1, path.lcaIndex + 1), ...path.down.slice(1, path.lcaDown)];
}

/**
 * The route of edge `e`, filling in the ports and local edges it needs; null when its ends do
 * not meet. Routing an edge again in a container that has it already changes nothing there.
 */
export function routeEdge(tree: LayoutTree, e: LayoutEdgeSpec): Route | null {
  const path = pathOf(tree, e);
  if (path === null) return null;
  const { up, down, lcaIndex, lcaDown } = path;
  const lca = up[lcaIndex] as string;
  const sourceChild = up[lcaIndex - 1] as string;
  const targetChild = down[lcaDown - 1] as string;
  // Where the edge crosses the lowest common container: from one of its elements to another.
  const from = `${lca}\u0000${sourceChild}`;
  const to = `${lca}\u0000${targetChild}`;
  const pieces: Piece[] = [];
  for (let i = 1; i < lcaIndex; i++) {
    const c = up[i] as string;
    pieces.push({ container: c, edge: localEdge(tree, c, element(tree, c, up[i - 1] as string), port(tree, c, "o", e.source, to), e.source, "") });
  }
  // One local edge per (source child, target child, source): edges of one value share it.
  const lcaPiece: Piece = {
    container: lca,
    edge: localEdge(tree, lca, element(tree, lca, sourceChild), `${element(tree, lca, targetChild)}\u0000${e.source}`, e.source, e.label),
  };
  pieces.push(lcaPiece);
  for (let i = lcaDown - 1; i >= 1; i--) {
    const c = down[i] as string;
    pieces.push({ container: c, edge: localEdge(tree, c, port(tree, c, "i", e.source, from), element(tree, c, down[i - 1] as string), e.source, "") });
  }
  return { id: e.id, pieces, labelPiece: e.label === "" ? null : lcaPiece };
}
