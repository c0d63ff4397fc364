/**
 * The visible graph at a given open/closed state: which nodes and boxes are drawn, inside
 * which open module, and the edges between them. A closed module (or a folded run) is one box
 * that stands for its whole subtree: edges into or out of the subtree attach to the box, and
 * parallel edges between the same two drawn items become one edge that keeps every shape.
 */
import type { Edge, GraphIndex, LeafGroup, ModuleCall, Node, Tensor } from "./document";
import type { ViewState } from "./state";

export interface VisibleNode {
  readonly type: "node";
  readonly id: string;
  readonly node: Node;
  /** The open module call it is drawn in. */
  readonly container: string;
  readonly failed: boolean;
  /** A parameter or buffer that other module calls read too (each through a node of its own). */
  readonly shared: boolean;
}

export interface VisibleBox {
  readonly type: "box";
  /** The module id, or for a folded run the id of its first module. */
  readonly id: string;
  readonly module: ModuleCall;
  /** 1 for a plain closed module, N for a folded run of N identical calls. */
  readonly repeat: number;
  /** The module calls the box stands for (one, or the N of a run). */
  readonly members: readonly string[];
  readonly container: string | null;
  /** A failed node lies inside. */
  readonly failed: boolean;
  /** Total parameters of the members. */
  readonly numParams: number;
  /** N when this call belongs to an unfolded run of N identical calls (it can be folded back), else 0. */
  readonly run: number;
  /** Set when the box is a group of the model's inputs or outputs, not a module call. */
  readonly group: LeafGroup | undefined;
}

export type VisibleItem = VisibleNode | VisibleBox;

export interface VisibleContainer {
  readonly id: string;
  readonly module: ModuleCall;
  readonly parent: string | null;
  /** Drawn nodes, boxes and open child modules, in execution order. */
  readonly members: readonly string[];
  readonly failed: boolean;
  /** As VisibleBox.run. */
  readonly run: number;
  /** N when this call stands for its whole run of N identical calls ("1 of N"), the others in a box after it; else 0. */
  readonly peek: number;
  /** As VisibleBox.group. */
  readonly group: LeafGroup | undefined;
}

export interface VisibleEdge {
  /** `source>target`, unique among visible edges. */
  readonly id: string;
  readonly source: string;
  readonly target: string;
  /** Distinct tensors (by shape and dtype) carried by the merged document edges. */
  readonly tensors: readonly Tensor[];
  /** Indices into the document's edges. */
  readonly edges: readonly number[];
}

export interface VisibleGraph {
  /** The outermost open module, or null when the root itself is a closed box. */
  readonly root: string | null;
  readonly containers: ReadonlyMap<string, VisibleContainer>;
  readonly items: ReadonlyMap<string, VisibleItem>;
  readonly edges: readonly VisibleEdge[];
  /** Where each document node is drawn: itself, a box that hides it, or null (filtered out). */
  readonly nodeOwner: ReadonlyMap<string, string | null>;
  /** Where each module call is drawn: an open container or the box hiding it. */
  readonly moduleOwner: ReadonlyMap<string, string>;
}

type Placement = { kind: "open" } | { kind: "hidden"; box: string };

/** What a visible graph takes from the document alone, computed once per index. */
interface Fixed {
  readonly failedModules: ReadonlySet<string>;
  readonly moduleIndex: ReadonlyMap<string, number>;
  /** Each node drawn as itself, one object for every state, so sizing can reuse its look. */
  readonly nodeItems: Map<string, VisibleNode>;
  /** The document index of each node in nodeItems, so ordering the drawn ones needs no index of every node id. */
  readonly nodeAt: Map<string, number>;
  /** The key (shape and dtype) of each tensor object met so far; the page's packed form shares them between edges. */
  readonly tensorKeys: WeakMap<Tensor, string>;
  readonly open: Placement;
  /** The document edges into or out of each node, by index (made on the first update). */
  incident: Map<string, number[]> | null;
}

// A click recomputes the visible graph of the whole document: its state-independent parts are kept.
const fixedOf = new WeakMap<GraphIndex, Fixed>();

function fixed(index: GraphIndex): Fixed {
  let f = fixedOf.get(index);
  if (f === undefined) {
    f = {
      failedModules: failedModuleSet(index),
      moduleIndex: new Map(index.moduleOrder.map((id, i) => [id, i])),
      nodeItems: new Map(),
      nodeAt: new Map(),
      tensorKeys: new WeakMap(),
      open: { kind: "open" },
      incident: null,
    };
    fixedOf.set(index, f);
  }
  return f;
}

/** A tensor's shape and dtype as one string, built once per tensor object and only for edges that are drawn. */
function tensorKey(f: Fixed, tensor: Tensor): string {
  let key = f.tensorKeys.get(tensor);
  if (key === undefined) {
    key = `${tensor.shape.join(",")}|${tensor.dtype}`;
    f.tensorKeys.set(tensor, key);
  }
  return key;
}

/** The document index of a node drawn as itself in some visible graph of `index`, else undefined. */
export function drawnNodeAt(index: GraphIndex, id: string): number | undefined {
  return fixedOf.get(index)?.nodeAt.get(id);
}

function nodeItem(index: GraphIndex, f: Fixed, node: Node, at: number): VisibleNode {
  let item = f.nodeItems.get(node.id);
  if (item === undefined) {
    item = {
      type: "node",
      id: node.id,
      node,
      container: node.module,
      failed: index.failedNodes.has(node.id),
      shared: (index.shared.get(node.id)?.nodes.length ?? 0) > 1,
    };
    f.nodeItems.set(node.id, item);
    f.nodeAt.set(node.id, at);
  }
  return item;
}

/**
 * What a computation leaves for the next one (per index, the last one only): a +/− changes
 * one module's subtree, and at 50,000 nodes computing the whole graph again took a fifth of a
 * second of the page's main thread for each click.
 */
interface Memo {
  readonly state: ViewState;
  readonly graph: VisibleGraph;
  /** Where each box came in the computation's walk over the modules (the order of its items). */
  readonly ranks: ReadonlyMap<string, number>;
  /** The pass-through boxes' outputs (see passThrough). */
  readonly through: ReadonlyMap<string, string>;
}

const memoOf = new WeakMap<GraphIndex, Memo>();

export function computeVisibleGraph(index: GraphIndex, state: ViewState): VisibleGraph {
  const last = memoOf.get(index);
  const memo = (last === undefined ? null : updated(index, last, state)) ?? freshGraph(index, state);
  memoOf.set(index, memo);
  return memo.graph;
}

function freshGraph(index: GraphIndex, state: ViewState): Memo {
  const placement = new Map<string, Placement>();
  const ranks = new Map<string, number>();
  const boxes = new Map<string, VisibleBox>();
  const containers = new Map<string, { id: string; module: ModuleCall; parent: string | null; members: string[] }>();
  const f = fixed(index);
  const failedModules = f.failedModules;
  const OPEN = f.open;
  const hidden = new Map<string, Placement>();
  const hiddenIn = (box: string): Placement => {
    let p = hidden.get(box);
    if (p === undefined) {
      p = { kind: "hidden", box };
      hidden.set(box, p);
    }
    return p;
  };

  let rank = 0;
  const makeBox = (id: string, container: string | null): void => {
    if (boxes.has(id)) return;
    boxes.set(id, boxOf(index, state, failedModules, id, container, restOf.get(id)));
    ranks.set(id, rank);
  };

  // A run shown by its first call open has the other calls (and its glue) in one box of their own.
  const restOf = new Map<string, readonly string[]>();
  const restBox = (key: string): string | null => {
    const fold = index.folds.get(key);
    const second = fold?.modules[1];
    if (fold === undefined || second === undefined || !peeking(state, key)) return null;
    restOf.set(second, fold.modules.slice(1));
    return second;
  };

  for (const id of index.moduleOrder) {
    rank++;
    const m = index.modules.get(id) as ModuleCall;
    if (m.parent === null) {
      if (state.open.has(id)) {
        placement.set(id, OPEN);
        containers.set(id, { id, module: m, parent: null, members: [] });
      } else {
        makeBox(id, null);
        placement.set(id, hiddenIn(id));
      }
      continue;
    }
    const parentPlacement = placement.get(m.parent) as Placement;
    if (parentPlacement.kind === "hidden") {
      placement.set(id, parentPlacement);
      continue;
    }
    const foldKey = index.foldOf.get(id) ?? index.glueModuleOf.get(id);
    const rest = foldKey === undefined ? null : restBox(foldKey);
    if (foldKey !== undefined && rest !== null) {
      if (id === foldKey) {
        placement.set(id, OPEN);
        containers.set(id, { id, module: m, parent: m.parent, members: [] });
      } else {
        makeBox(rest, m.parent);
        placement.set(id, hiddenIn(rest));
      }
    } else if (foldKey !== undefined && !state.unfolded.has(foldKey)) {
      makeBox(foldKey, m.parent); // a glue module of a folded run is inside its box too
      placement.set(id, hiddenIn(foldKey));
    } else if (state.open.has(id)) {
      placement.set(id, OPEN);
      containers.set(id, { id, module: m, parent: m.parent, members: [] });
    } else {
      makeBox(id, m.parent);
      placement.set(id, hiddenIn(id));
    }
  }

  const items = new Map<string, VisibleItem>();
  const nodeOwner = new Map<string, string | null>();
  const docNodes = index.doc.nodes;
  for (let at = 0; at < docNodes.length; at++) {
    const node = docNodes[at] as Node;
    const p = placement.get(node.module) as Placement;
    const glue = index.glueOf.get(node.id);
    if (!passesFilters(node, state)) {
      nodeOwner.set(node.id, null);
    } else if (p.kind === "hidden") {
      nodeOwner.set(node.id, p.box);
    } else if (glue !== undefined && peeking(state, glue) && boxes.has(index.folds.get(glue)?.modules[1] ?? "")) {
      nodeOwner.set(node.id, index.folds.get(glue)?.modules[1] ?? null); // with the calls after the first
    } else if (glue !== undefined && boxes.has(glue) && !state.unfolded.has(glue)) {
      nodeOwner.set(node.id, glue); // the glue between the calls of a folded run is inside its box
    } else {
      nodeOwner.set(node.id, node.id);
      items.set(node.id, nodeItem(index, f, node, at));
    }
  }

  // Members of each container in execution order: nodes, boxes and open children.
  const order = f.nodeAt;
  const sortKey = (id: string): number =>
    order.get(id) ?? index.moduleFirstNode.get(id) ?? Number.POSITIVE_INFINITY;
  const addMember = (container: string | null, id: string): void => {
    if (container === null) return;
    containers.get(container)?.members.push(id);
  };
  for (const item of items.values()) addMember(item.type === "node" ? item.container : null, item.id);
  for (const box of boxes.values()) {
    items.set(box.id, box);
    addMember(box.container, box.id);
  }
  for (const c of containers.values()) addMember(c.parent, c.id);
  const moduleIndex = f.moduleIndex;
  for (const c of containers.values()) {
    c.members.sort((a, b) => sortKey(a) - sortKey(b) || (moduleIndex.get(a) ?? 0) - (moduleIndex.get(b) ?? 0));
  }

  const edgeMap = new Map<string, { source: string; target: string; tensors: Tensor[]; keys: Set<string>; edges: number[] }>();
  const addEdge = (source: string, target: string, tensor: Tensor, i: number): void => {
    const id = `${source}>${target}`;
    let entry = edgeMap.get(id);
    if (entry === undefined) {
      entry = { source, target, tensors: [], keys: new Set(), edges: [] };
      edgeMap.set(id, entry);
    }
    // Edge i is met once, so a repeat can only be the last index pushed (a scan was quadratic in a merged edge).
    if (entry.edges[entry.edges.length - 1] !== i) entry.edges.push(i);
    const key = tensorKey(f, tensor);
    if (!entry.keys.has(key)) {
      entry.keys.add(key);
      entry.tensors.push(tensor);
    }
  };
  const through = passThrough(index, boxes);
  index.edges.forEach((e, i) => {
    const source = nodeOwner.get(e.source) ?? null;
    const target = nodeOwner.get(e.target) ?? null;
    if (source === null || target === null || source === target) return;
    const via = through.get(`${e.source}:${e.source_output}`);
    if (via !== undefined && via !== source && via !== target) {
      addEdge(source, via, e.tensor, i); // through the box of the call that handed the tensor on
      addEdge(via, target, e.tensor, i);
      return;
    }
    addEdge(source, target, e.tensor, i);
  });
  const edges: VisibleEdge[] = [];
  for (const [id, e] of edgeMap) {
    edges.push({ id, source: e.source, target: e.target, tensors: e.tensors, edges: e.edges });
  }

  const moduleOwner = new Map<string, string>();
  for (const [id, p] of placement) moduleOwner.set(id, p.kind === "open" ? id : p.box);

  const finalContainers = new Map<string, VisibleContainer>();
  for (const c of containers.values()) finalContainers.set(c.id, containerOf(index, state, failedModules, c));
  const graph: VisibleGraph = {
    root: containers.has(index.root) ? index.root : null,
    containers: finalContainers,
    items,
    edges,
    nodeOwner,
    moduleOwner,
  };
  return { state, graph, ranks, through };
}

/** Most modules a change may open or close for the visible graph to be updated rather than computed again. */
const UPDATE_MAX = 16;

/**
 * The visible graph of `state` made from the memo of a state that differs from it only in
 * which modules are open (a +/−, a search revealing a node): only the subtrees of those
 * modules are placed again, and only the edges of their nodes merged again; everything else
 * is the memo's own objects, in the order a fresh computation gives. Null when the change is
 * of another kind, or touches what this does not follow (runs folded or shown by their first
 * call, glue between a run's calls, module calls without nodes): computed afresh then.
 */
function updated(index: GraphIndex, memo: Memo, state: ViewState): Memo | null {
  const before = memo.state;
  if (before.showParameters !== state.showParameters || before.showConstants !== state.showConstants) return null;
  if (!sameSet(before.unfolded, state.unfolded) || !sameSet(before.peek, state.peek)) return null;
  const changed: string[] = [];
  for (const id of state.open) if (!before.open.has(id)) changed.push(id);
  for (const id of before.open) if (!state.open.has(id)) changed.push(id);
  if (changed.length === 0) return { ...memo, state };
  if (changed.length > UPDATE_MAX) return null;
  const f = fixed(index);
  const old = memo.graph;
  const changedSet = new Set(changed);
  // The topmost changed modules in open containers: their subtrees are the region placed again.
  const tops: string[] = [];
  for (const id of changed) {
    const m = index.modules.get(id);
    if (m === undefined || m.parent === null) return null;
    let above = false;
    for (let p: string | null = m.parent; p !== null; p = index.modules.get(p)?.parent ?? null) if (changedSet.has(p)) above = true;
    if (!above && old.containers.has(m.parent)) tops.push(id);
  }
  if (tops.length === 0) return { ...memo, state };
  const region: string[] = [];
  let nodes = 0;
  for (const top of tops) {
    const stack = [top];
    for (let id = stack.pop(); id !== undefined; id = stack.pop()) {
      const key = index.foldOf.get(id) ?? index.glueModuleOf.get(id);
      if (key !== undefined && (!state.unfolded.has(key) || peeking(state, key))) return null;
      if (!Number.isFinite(index.moduleFirstNode.get(id) ?? Number.POSITIVE_INFINITY)) return null;
      const own = index.moduleNodes.get(id) ?? [];
      for (const n of own) if (index.glueOf.has(n)) return null;
      // Opening most of the graph (the model's top module) costs less computed afresh.
      nodes += own.length;
      if (2 * nodes > index.doc.nodes.length) return null;
      region.push(id);
      for (const c of index.moduleChildren.get(id) ?? []) stack.push(c);
    }
  }
  const moduleIndex = f.moduleIndex;
  const rankOf = (id: string): number => moduleIndex.get(id) ?? 0;
  region.sort((a, b) => rankOf(a) - rankOf(b));
  const inRegion = new Set(region);

  // Placement of the region, top-down as a fresh computation places it.
  const moduleOwner = new Map(old.moduleOwner);
  const boxes: VisibleBox[] = [];
  const opened: { id: string; module: ModuleCall; parent: string | null; members: string[] }[] = [];
  const openNow = new Set<string>();
  for (const id of region) {
    const m = index.modules.get(id) as ModuleCall;
    const parent = m.parent as string;
    if (!(inRegion.has(parent) ? openNow.has(parent) : old.containers.has(parent))) moduleOwner.set(id, moduleOwner.get(parent) as string);
    else if (state.open.has(id)) {
      moduleOwner.set(id, id);
      openNow.add(id);
      opened.push({ id, module: m, parent, members: [] });
    } else {
      moduleOwner.set(id, id);
      boxes.push(boxOf(index, state, f.failedModules, id, parent, undefined));
    }
  }
  const nodeOwner = new Map(old.nodeOwner);
  const regionNodes: string[] = [];
  const drawn: VisibleNode[] = [];
  for (const id of region) {
    const owner = moduleOwner.get(id) as string;
    const open = openNow.has(id);
    for (const n of index.moduleNodes.get(id) ?? []) {
      regionNodes.push(n);
      const at = index.nodeIndex.get(n) as number;
      const node = index.doc.nodes[at] as Node;
      if (!passesFilters(node, state)) nodeOwner.set(n, null);
      else if (!open) nodeOwner.set(n, owner);
      else {
        nodeOwner.set(n, n);
        drawn.push(nodeItem(index, f, node, at));
      }
    }
  }

  const order = f.nodeAt;
  drawn.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));

  // Members of the containers opened, as a fresh computation orders them.
  const sortKey = (id: string): number => order.get(id) ?? index.moduleFirstNode.get(id) ?? Number.POSITIVE_INFINITY;
  const openedById = new Map(opened.map((c) => [c.id, c]));
  for (const item of drawn) openedById.get(item.container)?.members.push(item.id);
  for (const box of boxes) openedById.get(box.container as string)?.members.push(box.id);
  for (const c of opened) openedById.get(c.parent as string)?.members.push(c.id);
  for (const c of opened) c.members.sort((a, b) => sortKey(a) - sortKey(b) || rankOf(a) - rankOf(b));

  const containerList: [string, VisibleContainer][] = [];
  for (const [id, c] of old.containers) if (!inRegion.has(id)) containerList.push([id, c]);
  for (const c of opened) containerList.push([c.id, containerOf(index, state, f.failedModules, c)]);
  containerList.sort((a, b) => rankOf(a[0]) - rankOf(b[0]));
  const containers = new Map(containerList);

  // Items: drawn nodes in document order, then boxes in the order a fresh walk makes them.
  const ranks = new Map(memo.ranks);
  for (const id of region) ranks.delete(id);
  for (const box of boxes) ranks.set(box.id, rankOf(box.id) + 1);
  const regionNodeSet = new Set(regionNodes);
  const oldNodes: VisibleItem[] = [];
  const oldBoxes: VisibleItem[] = [];
  for (const item of old.items.values()) {
    if (item.type === "node") {
      if (!regionNodeSet.has(item.id)) oldNodes.push(item);
    } else if (!inRegion.has(item.id)) oldBoxes.push(item);
  }
  const items = new Map<string, VisibleItem>();
  merge(oldNodes, drawn, (item) => order.get(item.id) ?? 0, (item) => items.set(item.id, item));
  merge(oldBoxes, boxes, (item) => ranks.get(item.id) ?? 0, (item) => items.set(item.id, item));

  // Edges: those of the region's nodes are merged again; the rest keep their objects and order.
  if (f.incident === null) {
    const incident = new Map<string, number[]>();
    index.edges.forEach((e, i) => {
      for (const n of e.source === e.target ? [e.source] : [e.source, e.target]) {
        const list = incident.get(n);
        if (list === undefined) incident.set(n, [i]);
        else list.push(i);
      }
    });
    f.incident = incident;
  }
  const affected = new Set<number>();
  for (const n of regionNodes) for (const i of f.incident.get(n) ?? []) affected.add(i);
  const through = memo.through;
  const ends = (owners: ReadonlyMap<string, string | null>, i: number): [string, string, string][] => {
    const e = index.edges[i] as Edge;
    const source = owners.get(e.source) ?? null;
    const target = owners.get(e.target) ?? null;
    if (source === null || target === null || source === target) return [];
    const via = through.size === 0 ? undefined : through.get(`${e.source}:${e.source_output}`);
    if (via !== undefined && via !== source && via !== target) return [[`${source}>${via}`, source, via], [`${via}>${target}`, via, target]];
    return [[`${source}>${target}`, source, target]];
  };
  // Each edge a document edge of the region's nodes made or makes is merged again from its
  // document edges: those of the region as they are now, and the others it had (only the half of
  // a pass-through outside the region has any).
  const touched = new Map<string, { source: string; target: string; docs: number[] }>();
  const touch = (i: number, owners: ReadonlyMap<string, string | null>): [string, string, string][] => {
    const made = ends(owners, i);
    for (const [id, source, target] of made) if (!touched.has(id)) touched.set(id, { source, target, docs: [] });
    return made;
  };
  for (const i of affected) touch(i, old.nodeOwner);
  for (const i of affected) for (const [id] of touch(i, nodeOwner)) touched.get(id)?.docs.push(i);
  if (through.size > 0) {
    for (const e of old.edges) {
      const t = touched.get(e.id);
      if (t !== undefined) for (const i of e.edges) if (!affected.has(i)) t.docs.push(i);
    }
  }
  const rebuilt: VisibleEdge[] = [];
  for (const [id, t] of touched) {
    if (t.docs.length === 0) continue;
    const docs = t.docs.sort((a, b) => a - b);
    const keys = new Set<string>();
    const tensors: Tensor[] = [];
    for (const i of docs) {
      const tensor = (index.edges[i] as Edge).tensor;
      const key = tensorKey(f, tensor);
      if (!keys.has(key)) {
        keys.add(key);
        tensors.push(tensor);
      }
    }
    rebuilt.push({ id, source: t.source, target: t.target, tensors, edges: docs });
  }
  // A fresh computation makes each edge at its first document edge (the second half of a
  // pass-through after the first): that is the order to keep.
  const placeOf = (e: VisibleEdge): number => {
    const first = e.edges[0] as number;
    const half = through.size === 0 ? 0 : ends(nodeOwner, first).findIndex(([id]) => id === e.id);
    return 2 * first + Math.max(0, half);
  };
  rebuilt.sort((a, b) => placeOf(a) - placeOf(b));
  const kept = old.edges.filter((e) => !touched.has(e.id));
  const edges: VisibleEdge[] = [];
  merge(kept, rebuilt, placeOf, (e) => edges.push(e));

  const graph: VisibleGraph = { root: old.root, containers, items, edges, nodeOwner, moduleOwner };
  return { state, graph, ranks, through };
}

/** Visits two lists, each in order by `key`, as one list in that order (ties: `a` first). */
function merge<T>(a: readonly T[], b: readonly T[], key: (x: T) => number, visit: (x: T) => void): void {
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && key(a[i] as T) <= key(b[j] as T))) visit(a[i++] as T);
    else visit(b[j++] as T);
  }
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

/** A module call's box: itself, a folded run (key `id`), or the calls of a run after its first (`rest`). */
function boxOf(index: GraphIndex, state: ViewState, failedModules: ReadonlySet<string>, id: string, container: string | null, rest: readonly string[] | undefined): VisibleBox {
  const fold = index.folds.get(id);
  const members = rest !== undefined ? rest : fold !== undefined && !state.unfolded.has(id) ? fold.modules : [id];
  const module = index.modules.get(id) as ModuleCall;
  // A module called in a loop, or a norm called after every block, owns its parameters once.
  const counted = new Set<string>();
  let numParams = 0;
  const folded = rest === undefined && fold !== undefined && members === fold.modules;
  for (const m of folded ? [...members, ...fold.glueModules] : members) {
    const call = index.modules.get(m);
    if (call === undefined || counted.has(call.path)) continue;
    counted.add(call.path);
    numParams += call.num_params;
  }
  return {
    type: "box",
    id,
    module,
    repeat: members.length,
    members,
    container,
    failed: members.some((m) => failedModules.has(m)),
    numParams,
    run: members.length > 1 ? 0 : runOf(index, state, id),
    group: index.groups.get(id),
  };
}

/** N when module `id` belongs to an unfolded run of N calls, else 0. */
function runOf(index: GraphIndex, state: ViewState, id: string): number {
  const key = index.foldOf.get(id);
  return key !== undefined && state.unfolded.has(key) ? (index.folds.get(key)?.modules.length ?? 0) : 0;
}

function containerOf(index: GraphIndex, state: ViewState, failedModules: ReadonlySet<string>, c: { id: string; module: ModuleCall; parent: string | null; members: string[] }): VisibleContainer {
  return {
    id: c.id,
    module: c.module,
    parent: c.parent,
    members: c.members,
    failed: failedModules.has(c.id),
    run: runOf(index, state, c.id),
    peek: peeking(state, c.id) ? (index.folds.get(c.id)?.modules.length ?? 0) : 0,
    group: index.groups.get(c.id),
  };
}

/** Whether the run `key` is shown by its first call open (not folded, not unfolded). */
function peeking(state: ViewState, key: string): boolean {
  return state.peek.has(key) && !state.unfolded.has(key);
}

/**
 * Closed boxes of module calls without any node (an nn.Identity, a module returning its input)
 * by the node outputs they returned, as `node:port`: what reads such a tensor is drawn reading
 * it from the box, so the box lies on the tensor's path instead of beside it. The document
 * does not say which readers got the tensor through the call, so all of them do.
 */
function passThrough(index: GraphIndex, boxes: ReadonlyMap<string, VisibleBox>): Map<string, string> {
  const through = new Map<string, string>();
  for (const box of boxes.values()) {
    if (box.group !== undefined || box.container === null) continue;
    if (box.members.some((m) => Number.isFinite(index.moduleFirstNode.get(m) ?? Number.POSITIVE_INFINITY))) continue;
    for (const m of box.members) {
      for (const t of index.modules.get(m)?.outputs ?? []) through.set(`${t.source}:${t.source_output}`, box.id);
    }
  }
  return through;
}

function passesFilters(node: Node, state: ViewState): boolean {
  if (!state.showParameters && (node.kind === "parameter" || node.kind === "buffer")) return false;
  if (!state.showConstants && node.kind === "constant") return false;
  return true;
}

/** Module calls that contain a failed node (at any depth) or were left by the exception. */
function failedModuleSet(index: GraphIndex): Set<string> {
  const failed = new Set<string>();
  const mark = (moduleId: string | null): void => {
    let current = moduleId;
    while (current !== null && !failed.has(current)) {
      failed.add(current);
      current = index.modules.get(current)?.parent ?? null;
    }
  };
  for (const id of index.failedNodes) mark(index.nodes.get(id)?.module ?? null);
  for (const m of index.modules.values()) if (m.failed === true) mark(m.id);
  return failed;
}
