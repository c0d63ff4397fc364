/**
 * The visible graph at a given open/closed state: which nodes and boxes are drawn, inside
 * which open module, and the edges between them. A closed module (or a folded run) is one box
 * that stands for its whole subtree: edges into or out of the subtree attach to the box, and
 * parallel edges between the same two drawn items become one edge that keeps every shape.
 */
import type { GraphIndex, LeafGroup, ModuleCall, Node, Tensor } from "./document";
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

export function computeVisibleGraph(index: GraphIndex, state: ViewState): VisibleGraph {
  const placement = new Map<string, Placement>();
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
  const runOf = (id: string): number => {
    const key = index.foldOf.get(id);
    return key !== undefined && state.unfolded.has(key) ? (index.folds.get(key)?.modules.length ?? 0) : 0;
  };

  const makeBox = (id: string, container: string | null): void => {
    if (boxes.has(id)) return;
    const fold = index.folds.get(id);
    const rest = restOf.get(id);
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
    boxes.set(id, {
      type: "box",
      id,
      module,
      repeat: members.length,
      members,
      container,
      failed: members.some((m) => failedModules.has(m)),
      numParams,
      run: members.length > 1 ? 0 : runOf(id),
      group: index.groups.get(id),
    });
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
  for (const c of containers.values()) {
    const peek = peeking(state, c.id) ? (index.folds.get(c.id)?.modules.length ?? 0) : 0;
    finalContainers.set(c.id, {
      id: c.id,
      module: c.module,
      parent: c.parent,
      members: c.members,
      failed: failedModules.has(c.id),
      run: runOf(c.id),
      peek,
      group: index.groups.get(c.id),
    });
  }
  return {
    root: containers.has(index.root) ? index.root : null,
    containers: finalContainers,
    items,
    edges,
    nodeOwner,
    moduleOwner,
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
