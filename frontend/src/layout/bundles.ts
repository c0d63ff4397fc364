/**
 * Bundles: many values that take the same way through a module are laid out as one.
 *
 * Each value crossing a module's border has its own port, and each local edge its own Graphviz
 * edge. A Llama returns the key/value cache of every layer: 714 layers hand 1,428 values out of
 * the model to 1,428 outputs (in one group box), so the model's layout had 1,429 exit ports (a
 * sink rank of 1,429 points) and the root 1,428 identical parallel edges; Graphviz took 5 s and
 * 2.5 s on them, and a click in a 50k-node Llama 45 s. Here the ports of a module whose edges
 * all come from (entry) or go to (exit) the same elements of the containers where they cross
 * over form one bundle when there are at least BUNDLE_MIN of them (a bus: the values travel
 * together to that element), laid out as one port, and local edges that are identical
 * (same ends, fields and label) are laid out once when they run into or out of a bundle, or
 * come BUNDLE_MIN or more at a time; every one of them gets that one route (only the first its
 * label). Fewer than BUNDLE_MIN stay apart as before, so an op reading two values from outside
 * still shows two edges.
 */
import type { LocalEdge } from "./dot";
import type { GraphvizLayout } from "./graphviz";
import type { Point } from "./types";

/** Ports (or identical edges) from which on they are laid out as one. */
export const BUNDLE_MIN = 8;

export interface Bundled {
  readonly inPorts: number;
  readonly outPorts: number;
  readonly edges: readonly LocalEdge[];
  /** The layout of the whole local graph, from the layout of the bundled one. */
  expand(layout: GraphvizLayout): GraphvizLayout;
}

/**
 * The local graph with its bundles laid out as one. `ends` gives, per port name (`i0`, `o3`),
 * where its edges come from or go to (Work.portEnds).
 */
export function bundle(
  inPorts: number,
  outPorts: number,
  edges: readonly LocalEdge[],
  ends: ReadonlyMap<string, ReadonlySet<string>>,
): Bundled {
  const inMap = portMap("i", inPorts, ends);
  const outMap = portMap("o", outPorts, ends);
  const rename = (name: string): string => {
    const map = name.startsWith("i") ? inMap : name.startsWith("o") ? outMap : null;
    return map === null || map.merged === 0 ? name : `${name[0]}${map.index[Number(name.slice(1))] ?? 0}`;
  };
  const bundledPort = (name: string): boolean =>
    (name.startsWith("i") && inMap.inBundle[Number(name.slice(1))] === true) ||
    (name.startsWith("o") && outMap.inBundle[Number(name.slice(1))] === true);
  const renamed = inMap.merged === 0 && outMap.merged === 0 ? edges : edges.map((e) => ({ ...e, from: rename(e.from), to: rename(e.to) }));
  const keyOf = (e: LocalEdge): string => `${e.from}>${e.to}>${e.label}>${e.tailField ?? ""}>${e.headField ?? ""}`;
  const counts = new Map<string, number>();
  for (const e of renamed) {
    const key = keyOf(e);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const reduced: LocalEdge[] = [];
  const edgeOf: number[] = [];
  const first: boolean[] = [];
  const shared = new Map<string, number>();
  let duplicates = 0;
  renamed.forEach((e, j) => {
    const key = keyOf(e);
    const together = (counts.get(key) ?? 1) >= BUNDLE_MIN || bundledPort(edges[j]?.from ?? "") || bundledPort(edges[j]?.to ?? "");
    const r = together ? shared.get(key) : undefined;
    if (r !== undefined) {
      edgeOf.push(r);
      first.push(false);
      duplicates++;
      return;
    }
    if (together) shared.set(key, reduced.length);
    edgeOf.push(reduced.length);
    first.push(true);
    reduced.push(e);
  });
  if (inMap.merged === 0 && outMap.merged === 0 && duplicates === 0) {
    return { inPorts, outPorts, edges, expand: (layout) => layout };
  }
  return {
    inPorts: inPorts - inMap.merged,
    outPorts: outPorts - outMap.merged,
    edges: reduced,
    expand: (layout) => {
      const nodes = new Map<string, Point>();
      for (const [name, at] of layout.nodes) if (name.startsWith("e")) nodes.set(name, at);
      for (const [kind, count, map] of [["i", inPorts, inMap], ["o", outPorts, outMap]] as const) {
        for (let k = 0; k < count; k++) {
          const at = layout.nodes.get(`${kind}${map.merged === 0 ? k : (map.index[k] ?? 0)}`);
          if (at !== undefined) nodes.set(`${kind}${k}`, at);
        }
      }
      const routed = edgeOf.map((r, j) => {
        const e = layout.edges[r];
        if (e === undefined || first[j] === true) return e as GraphvizLayout["edges"][number];
        return { points: e.points, label: null };
      });
      return { width: layout.width, height: layout.height, nodes, edges: routed };
    },
  };
}

interface PortMap {
  /** Each port's index in the bundled graph. */
  readonly index: readonly number[];
  /** Whether the port is one of a bundle. */
  readonly inBundle: readonly boolean[];
  /** How many ports fewer the bundled graph has. */
  readonly merged: number;
}

function portMap(kind: "i" | "o", count: number, ends: ReadonlyMap<string, ReadonlySet<string>>): PortMap {
  const none: PortMap = { index: [], inBundle: [], merged: 0 };
  if (count < BUNDLE_MIN) return none;
  const signatures: string[] = [];
  const sizes = new Map<string, number>();
  for (let k = 0; k < count; k++) {
    const signature = [...(ends.get(`${kind}${k}`) ?? [])].sort().join("\u0000");
    signatures.push(signature);
    sizes.set(signature, (sizes.get(signature) ?? 0) + 1);
  }
  if ([...sizes.values()].every((n) => n < BUNDLE_MIN)) return none;
  const index: number[] = [];
  const inBundle: boolean[] = [];
  const shared = new Map<string, number>();
  let next = 0;
  for (const signature of signatures) {
    const together = (sizes.get(signature) ?? 0) >= BUNDLE_MIN;
    const r = together ? shared.get(signature) : undefined;
    inBundle.push(together);
    if (r !== undefined) {
      index.push(r);
      continue;
    }
    if (together) shared.set(signature, next);
    index.push(next++);
  }
  return { index, inBundle, merged: count - next };
}
