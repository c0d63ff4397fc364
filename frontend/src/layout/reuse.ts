/**
 * What the engine keeps of its last request, so that the next one routes and measures again
 * only the containers it changes: a +/− changes one module, and at 50,000 nodes doing every
 * container again was most of a click. The tree, the routes and which containers to measure
 * come out as a fresh build of the same request would give them (test/incremental.test.ts).
 *
 * A container is routed again (with new work) when its spec changed, it is new, a member of
 * it stopped being a container, or an edge with a piece in it appeared, went or changed, or
 * runs through a container that changed; every edge with a piece in such a container is then
 * routed again, in request order, so its ports and local edges are numbered as a fresh build
 * numbers them. Every other container keeps its work, its ports and local layout included.
 */
import { containersOf, routeEdge, type Route } from "./route";
import { newWork, type LayoutTree, type Size, type Work } from "./tree";
import type { LayoutContainerSpec, LayoutEdgeSpec, LayoutGraph } from "./types";

export interface Update {
  readonly tree: LayoutTree;
  /** The route of each edge of the request whose ends meet, in request order. */
  readonly routes: Route[];
  /** The containers to measure again (routed again, resized members, or around one that is). */
  readonly measure: ReadonlySet<string>;
  /** The containers of the last request that this one has not. */
  readonly removed: readonly string[];
}

interface KeptEdge {
  readonly spec: LayoutEdgeSpec;
  readonly route: Route | null;
}

export class KeptLayout {
  private root: string | null = null;
  private work = new Map<string, Work>();
  private parentOf = new Map<string, string>();
  private sizes = new Map<string, Size>();
  private edges = new Map<string, KeptEdge>();
  /** Per container, the edges that have a piece in it. */
  private through = new Map<string, Set<string>>();

  update(graph: LayoutGraph, segments: ReadonlySet<string>): Update {
    const order = new Map<string, number>();
    let added = 0;
    graph.edges.forEach((e, i) => {
      order.set(e.id, i);
      if (!this.edges.has(e.id)) added++;
    });
    // When most edges are new (Open all, a first request) a fresh build is the cheaper one.
    if (graph.root !== this.root || 2 * added > graph.edges.length) this.clear(graph.root);
    const fresh = this.work.size === 0;
    const specs = new Map<string, LayoutContainerSpec>();
    for (const c of graph.containers) specs.set(c.id, c);
    const routed = new Set<string>();
    const reroute = new Set<string>();
    const removed: string[] = [];

    for (const [id, w] of this.work) {
      if (specs.has(id)) continue;
      removed.push(id);
      const parent = this.parentOf.get(id);
      if (parent !== undefined) routed.add(parent);
      for (const e of this.through.get(id) ?? []) reroute.add(e);
      this.forget(id, w);
      this.through.delete(id);
    }
    const changed: LayoutContainerSpec[] = [];
    for (const c of graph.containers) {
      const w = this.work.get(c.id);
      if (w !== undefined && sameSpec(w.spec, c)) continue;
      if (w !== undefined) {
        for (const e of this.through.get(c.id) ?? []) reroute.add(e);
        this.forget(c.id, w);
      }
      changed.push(c);
    }
    // Members are claimed after every changed container let go of its old ones.
    for (const c of changed) {
      for (const m of c.members) this.parentOf.set(m, c.id);
      routed.add(c.id);
    }
    for (const c of changed) {
      const parent = this.parentOf.get(c.id);
      if (parent !== undefined) routed.add(parent);
    }

    const resized = new Set<string>();
    for (const item of graph.items) {
      const s = this.sizes.get(item.id);
      if (s !== undefined && s.width === item.width && s.height === item.height) continue;
      this.sizes.set(item.id, { width: item.width, height: item.height });
      const parent = this.parentOf.get(item.id);
      if (parent !== undefined) resized.add(parent);
    }

    const tree: LayoutTree = { root: graph.root, work: this.work, parentOf: this.parentOf, sizes: this.sizes, segments };
    for (const [id, kept] of this.edges) {
      if (order.has(id)) continue;
      for (const p of kept.route?.pieces ?? []) {
        routed.add(p.container);
        this.through.get(p.container)?.delete(id);
      }
      this.edges.delete(id);
      reroute.delete(id);
    }
    for (const e of graph.edges) {
      const kept = this.edges.get(e.id);
      if (kept === undefined || kept.spec.source !== e.source || kept.spec.target !== e.target || kept.spec.label !== e.label) reroute.add(e.id);
    }
    if (!fresh) {
      for (const id of reroute) {
        for (const p of this.edges.get(id)?.route?.pieces ?? []) routed.add(p.container);
        for (const c of containersOf(tree, graph.edges[order.get(id) as number] as LayoutEdgeSpec)) routed.add(c);
      }
    }

    // Every edge with a piece in a container routed again is routed again, in request order.
    const again = new Set(reroute);
    for (const c of routed) {
      const spec = specs.get(c);
      if (spec === undefined) continue;
      for (const e of this.through.get(c) ?? []) again.add(e);
      this.work.set(c, newWork(spec));
      this.through.set(c, new Set());
    }
    const edgeOrder = fresh ? graph.edges : [...again].map((id) => order.get(id) as number).sort((a, b) => a - b).map((i) => graph.edges[i] as LayoutEdgeSpec);
    for (const e of edgeOrder) {
      for (const p of this.edges.get(e.id)?.route?.pieces ?? []) if (!routed.has(p.container)) this.through.get(p.container)?.delete(e.id);
      const route = routeEdge(tree, e);
      this.edges.set(e.id, { spec: e, route });
      for (const p of route?.pieces ?? []) {
        let set = this.through.get(p.container);
        if (set === undefined) this.through.set(p.container, (set = new Set()));
        set.add(e.id);
      }
    }
    const routes: Route[] = [];
    for (const e of graph.edges) {
      const route = this.edges.get(e.id)?.route;
      if (route != null) routes.push(route);
    }

    // Measuring a container reads its members' blocks: whatever is measured again, so is each container around it.
    const measure = new Set<string>();
    for (const start of [...routed, ...resized]) {
      for (let c: string | undefined = start; c !== undefined && !measure.has(c) && this.work.has(c); c = this.parentOf.get(c)) measure.add(c);
    }
    return { tree, routes, measure, removed };
  }

  private clear(root: string): void {
    this.root = root;
    this.work = new Map();
    this.parentOf = new Map();
    this.sizes = new Map();
    this.edges = new Map();
    this.through = new Map();
  }

  /** Drops container `id`'s work and its claim on its members. */
  private forget(id: string, w: Work): void {
    for (const m of w.spec.members) if (this.parentOf.get(m) === id) this.parentOf.delete(m);
    this.work.delete(id);
  }
}

function sameSpec(a: LayoutContainerSpec, b: LayoutContainerSpec): boolean {
  if (a.parent !== b.parent || a.header !== b.header || a.minWidth !== b.minWidth || a.control !== b.control || a.title !== b.title) return false;
  if (a.members.length !== b.members.length) return false;
  for (let i = 0; i < a.members.length; i++) if (a.members[i] !== b.members[i]) return false;
  return true;
}
