/**
 * The containers of one layout request as the engine works on them: each open module's
 * members, the ports and local edges routing gives it, and the local layout, size and inset
 * measuring gives it. Shared by route.ts, reuse.ts (kept between requests), engine.ts (measure)
 * and compose.ts (place, stitch).
 */
import type { GraphvizLayout } from "./graphviz";
import type { LayoutContainerSpec } from "./types";

/** A local edge of one container's own layout. */
export interface LocalWorkEdge {
  readonly from: string;
  readonly to: string;
  /** The value (its producing node) the edge carries. */
  readonly source: string;
  readonly labels: string[];
}

export interface Work {
  readonly spec: LayoutContainerSpec;
  readonly elementIndex: Map<string, number>;
  readonly inPorts: Map<string, number>;
  readonly outPorts: Map<string, number>;
  readonly edges: LocalWorkEdge[];
  readonly edgeIndex: Map<string, number>;
  /**
   * Per port (`i3`, `o0`), the elements of the lowest common containers its edges come from
   * (an entry port) or go to (an exit port): ports with the same ones form a bundle (bundles.ts).
   */
  readonly portEnds: Map<string, Set<string>>;
  local: GraphvizLayout | null;
  width: number;
  height: number;
  /** How far right of its block's left edge the container's own layout is drawn. */
  inset: number;
  /** Of a segment: the x (from its block's left edge) its stack is centred on (see spines.ts). */
  spine: number;
}

export interface Size {
  readonly width: number;
  readonly height: number;
}

export interface LayoutTree {
  readonly root: string;
  readonly work: ReadonlyMap<string, Work>;
  /** The container each item or container is a member of. */
  readonly parentOf: ReadonlyMap<string, string>;
  readonly sizes: ReadonlyMap<string, Size>;
  /** Containers of the layout's own (see segments.ts): no header, border or control. */
  readonly segments: ReadonlySet<string>;
}

/** Size of an element the view did not size (never expected; keeps the layout going). */
export const FALLBACK_SIZE: Size = { width: 40, height: 24 };

/** A container's work before routing and measuring. */
export function newWork(spec: LayoutContainerSpec): Work {
  return {
    spec,
    elementIndex: new Map(spec.members.map((m, i) => [m, i])),
    inPorts: new Map(),
    outPorts: new Map(),
    edges: [],
    edgeIndex: new Map(),
    portEnds: new Map(),
    local: null,
    width: 0,
    height: 0,
    inset: 0,
    spine: 0,
  };
}

/** `id` and the containers around it, innermost first. */
export function ancestry(tree: LayoutTree, id: string): string[] {
  const chain = [id];
  let p = tree.parentOf.get(id);
  while (p !== undefined) {
    chain.push(p);
    p = tree.parentOf.get(p);
  }
  return chain;
}

/** The size of a member: a measured container's block, or the item's size. */
export function sizeOf(tree: LayoutTree, id: string): Size {
  // The work itself, not a copy: called for every member several times per request.
  return tree.work.get(id) ?? tree.sizes.get(id) ?? FALLBACK_SIZE;
}

/** The container `id`'s work (it is one: ids come from the tree itself). */
export function workOf(tree: LayoutTree, id: string): Work {
  return tree.work.get(id) as Work;
}
