/**
 * Reading a Vista graph document (schema v1) into an index the rest of the viewer queries:
 * the module-call tree, nodes by id, repeated-block groups. No DOM here.
 */
import type {
  Edge,
  ModuleCall,
  Node,
  RepeatedBlock,
  SharedTensor,
  VistaGraphDocumentSchemaVersion1 as GraphDocument,
} from "./schema.generated";
import { formatPath, graphSchemaChecker, LONG_LISTS, show, stagedGraphChecker, type LongList, type Problem } from "./check";

export type { Edge, ModuleCall, Node, GraphDocument, SharedTensor };
export type { Tensor, Parameter, Source, TraceError } from "./schema.generated";

/** The schema major version this viewer reads. */
export const SUPPORTED_SCHEMA_MAJOR = 1;

/** A document the viewer cannot read (wrong version, broken references). */
export class DocumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DocumentError";
  }
}

/** A run of consecutive identical sibling module calls, shown folded as one "×N" box. */
export interface FoldGroup {
  /** The id of the fold box: the first module of the run. */
  readonly key: string;
  readonly parent: string;
  readonly modules: readonly string[];
  /** The parent's own nodes after the calls (residual adds, norms), folded with them. */
  readonly glue: readonly string[];
  /** The parent's other child calls in the glue (a norm module after each block), folded with them. */
  readonly glueModules: readonly string[];
}

/**
 * Many inputs or outputs of the model under one name, such as the 48 key and value tensors of
 * GPT-2's cache (`cache.layers[0].keys`, …), drawn as one box that opens like a module (the
 * viewer's own grouping: the document has no such call).
 */
export interface LeafGroup {
  /** Its id among module ids (`g:output:cache`); documents never use "g:". */
  readonly id: string;
  readonly kind: "input" | "output";
  /** The name its members share: what comes before the first "." or "[". */
  readonly name: string;
  /** Member node ids, in document order. */
  readonly nodes: readonly string[];
}

/** "48 outputs": how many inputs or outputs a group holds, as its box, header and details say. */
export function leafGroupSize(group: Pick<LeafGroup, "kind" | "nodes">): string {
  return `${group.nodes.length} ${group.kind}s`;
}

/** Fewest inputs (or outputs) under one name that are grouped: below it they are drawn one by one. */
export const LEAF_GROUP_MIN = 5;

export interface GraphIndex {
  /**
   * The document as the viewer draws it: the document read, with one module call added per
   * LeafGroup (a child of the root) and the group's input or output nodes moved into it.
   */
  readonly doc: GraphDocument;
  readonly root: string;
  readonly modules: ReadonlyMap<string, ModuleCall>;
  /** Module ids in document order. */
  readonly moduleOrder: readonly string[];
  readonly moduleChildren: ReadonlyMap<string, readonly string[]>;
  /** Depth of each module call: 0 for the root. */
  readonly moduleDepth: ReadonlyMap<string, number>;
  /** Ids of the nodes directly inside each module call. */
  readonly moduleNodes: ReadonlyMap<string, readonly string[]>;
  /** Smallest node index in each module's subtree (its place in execution order). */
  readonly moduleFirstNode: ReadonlyMap<string, number>;
  readonly nodes: ReadonlyMap<string, Node>;
  readonly nodeIndex: ReadonlyMap<string, number>;
  readonly edges: readonly Edge[];
  readonly folds: ReadonlyMap<string, FoldGroup>;
  /** For a module inside a repeated run, the key of its fold group. */
  readonly foldOf: ReadonlyMap<string, string>;
  /** For a glue node between the calls of a repeated run, the key of its fold group. */
  readonly glueOf: ReadonlyMap<string, string>;
  /** For a glue module call of a repeated run, the key of its fold group. */
  readonly glueModuleOf: ReadonlyMap<string, string>;
  /** Nodes marked as failed (kind "error", an `error` field, or the document error's node). */
  readonly failedNodes: ReadonlySet<string>;
  /** Groups of inputs or outputs by their module id. */
  readonly groups: ReadonlyMap<string, LeafGroup>;
  /** The shared (or tied) parameter or buffer each of its nodes stands for, by node id. */
  readonly shared: ReadonlyMap<string, SharedTensor>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Checks the parts of the document the viewer relies on and builds the index.
 * Full validation is vista-core's job (JSON Schema); this reports what would break the viewer.
 */
export function readDocument(input: unknown): GraphIndex {
  const doc = checkVersion(input);
  const problem = graphSchemaChecker().check(doc);
  if (problem !== null) throw new DocumentError(explain(doc, problem));
  const index = buildIndex(doc, false);
  for (let i = 0; i < index.edges.length; i++) {
    const error = danglingEnd(index, i);
    if (error !== null) throw error;
  }
  return index;
}

/**
 * A document read for its first view (readForView): the index, built once the document's
 * head is checked, and the checks of the items of its long lists, which come after.
 */
export interface ViewRead {
  readonly index: GraphIndex;
  /** Checks the listed items (those a view draws) now; throws the document's DocumentError. */
  checkItems(list: LongList, at: Iterable<number>): void;
  /**
   * Checks every item of the long lists in document order, in slices of about `sliceMs`,
   * awaiting `pause()` between them (false stops the check); rejects with the document's DocumentError.
   */
  checkRest(pause: () => Promise<boolean>, sliceMs: number): Promise<void>;
  /**
   * What to report for `error`, thrown by code that read the document before it was checked
   * in full: the schema's problem if the document has one (as readDocument would say), else `error`.
   */
  explain(error: unknown): unknown;
}

/**
 * Reads a document as readDocument does, but checks the items of its long lists (nodes, edges)
 * only when asked: a view checks those it draws before its first draw and the rest after it.
 * Node ids are indexed on first use, and checked for repeats after the nodes' items; an edge's
 * ends with its item, after the first draw. Every problem is still reported with
 * readDocument's message: the first in document order.
 */
export function readForView(input: unknown): ViewRead {
  const doc = checkVersion(input);
  const staged = stagedGraphChecker();
  const full = (error: unknown): unknown => {
    const problem = graphSchemaChecker().check(doc);
    return problem === null ? error : new DocumentError(explain(doc, problem));
  };
  // A problem in the head may come after one in an item (nodes before repeated_blocks): the full check names the first.
  const head = staged.head.check(doc);
  if (head !== null) throw full(new DocumentError(explain(doc, head)));
  let index: GraphIndex;
  try {
    index = buildIndex(doc, true);
  } catch (error) {
    throw full(error);
  }
  const lists = doc as unknown as Record<LongList, readonly unknown[]>;
  return {
    index,
    checkItems(list, at) {
      for (const i of at) {
        const problem = staged.item(list, lists[list][i], i);
        if (problem !== null) throw full(new DocumentError(explain(doc, problem)));
      }
    },
    async checkRest(pause, sliceMs) {
      for (const list of LONG_LISTS) {
        const items = lists[list];
        let start = performance.now();
        for (let i = 0; i < items.length; i++) {
          // The head is checked, so the first problem here is the first of the document.
          const problem = staged.item(list, items[i], i);
          if (problem !== null) throw new DocumentError(explain(doc, problem));
          // readDocument names a dangling end only when the whole schema holds: a later item may break it.
          const dangling = list === "edges" ? danglingEnd(index, i) : null;
          if (dangling !== null) throw full(dangling);
          if ((i & 255) === 255 && performance.now() - start > sliceMs) {
            if (!(await pause())) return;
            start = performance.now();
          }
        }
        const repeat = list === "nodes" && index.nodeIndex instanceof NodeIds ? index.nodeIndex.repeat() : -1;
        if (repeat >= 0) throw full(repeatedId(index.doc.nodes, repeat));
      }
    },
    explain: full,
  };
}

/** The document as an object of a schema version this viewer reads, or a DocumentError. */
function checkVersion(input: unknown): Record<string, unknown> {
  if (!isObject(input)) {
    throw new DocumentError(
      `Invalid graph document: expected a JSON object, got ${describe(input)}. ` +
        "Pass the document produced by vista_core (Graph.to_dict()).",
    );
  }
  const version = input["schema_version"];
  if (typeof version !== "string" || !/^[0-9]+\.[0-9]+$/.test(version)) {
    throw new DocumentError(
      `Invalid "schema_version": ${JSON.stringify(version)}; expected "${SUPPORTED_SCHEMA_MAJOR}.x".`,
    );
  }
  const major = Number(version.split(".")[0]);
  if (major !== SUPPORTED_SCHEMA_MAJOR) {
    throw new DocumentError(
      `Unsupported schema_version "${version}": this viewer reads schema ` +
        `${SUPPORTED_SCHEMA_MAJOR}.x. Use a vista-render-html release made for schema ${major}.x.`,
    );
  }
  return input;
}

/** The DocumentError of edge `i` when one of its ends is no node's id, else null. */
function danglingEnd(index: GraphIndex, i: number): DocumentError | null {
  const e = index.edges[i] as Edge;
  const end = !index.nodes.has(e.source) ? "source" : !index.nodes.has(e.target) ? "target" : null;
  if (end === null) return null;
  return new DocumentError(dangling(`edges[${i}].${end}`, e[end], "node", `edge ${JSON.stringify(e.source)} -> ${JSON.stringify(e.target)}`));
}

/**
 * Nodes by id, read through the index of each id in the document's list: one Map of 100k ids
 * instead of two, which the first view of a large document waits for.
 */
class NodesById implements ReadonlyMap<string, Node> {
  constructor(
    private readonly list: readonly Node[],
    private readonly at: ReadonlyMap<string, number>,
  ) {}
  get size(): number {
    return this.at.size;
  }
  get(id: string): Node | undefined {
    const i = this.at.get(id);
    return i === undefined ? undefined : this.list[i];
  }
  has(id: string): boolean {
    return this.at.has(id);
  }
  forEach(callback: (value: Node, key: string, map: ReadonlyMap<string, Node>) => void, thisArg?: unknown): void {
    for (const [id, i] of this.at) callback.call(thisArg, this.list[i] as Node, id, this);
  }
  *entries(): MapIterator<[string, Node]> {
    for (const [id, i] of this.at) yield [id, this.list[i] as Node];
  }
  keys(): MapIterator<string> {
    return this.at.keys();
  }
  *values(): MapIterator<Node> {
    for (const i of this.at.values()) yield this.list[i] as Node;
  }
  [Symbol.iterator](): MapIterator<[string, Node]> {
    return this.entries();
  }
}

/**
 * Each node id's index in the document's list, the Map built on first use: a large document's
 * first view needs it for none of its nodes. With a repeated id the later index is kept, and
 * repeat() names the first repeat (such a document is refused once its check ends).
 */
class NodeIds implements ReadonlyMap<string, number> {
  private built: Map<string, number> | null;
  private first = -1;
  constructor(
    private readonly list: readonly Node[],
    built: Map<string, number> | null,
  ) {
    this.built = built;
  }
  private ids(): Map<string, number> {
    if (this.built === null) {
      const ids = new Map<string, number>();
      for (let i = 0; i < this.list.length; i++) {
        ids.set((this.list[i] as Node).id, i);
        if (this.first < 0 && ids.size !== i + 1) this.first = i;
      }
      this.built = ids;
    }
    return this.built;
  }
  /** The index of the first node whose id an earlier node has, or -1. */
  repeat(): number {
    this.ids();
    return this.first;
  }
  get size(): number {
    return this.ids().size;
  }
  get(id: string): number | undefined {
    return this.ids().get(id);
  }
  has(id: string): boolean {
    return this.ids().has(id);
  }
  forEach(callback: (value: number, key: string, map: ReadonlyMap<string, number>) => void, thisArg?: unknown): void {
    for (const [id, i] of this.ids()) callback.call(thisArg, i, id, this);
  }
  entries(): MapIterator<[string, number]> {
    return this.ids().entries();
  }
  keys(): MapIterator<string> {
    return this.ids().keys();
  }
  values(): MapIterator<number> {
    return this.ids().values();
  }
  [Symbol.iterator](): MapIterator<[string, number]> {
    return this.ids().entries();
  }
}

/** The DocumentError of node `i`, whose id an earlier node has. */
function repeatedId(nodes: readonly Node[], i: number): DocumentError {
  return new DocumentError(`Invalid graph document: nodes[${i}].id ${JSON.stringify(nodes[i]?.id)} is the id of an earlier node too.`);
}

/**
 * The index of a document whose schema is checked (or, for readForView, whose head is). Edges'
 * ends are not checked here: readDocument checks them all, readForView with each edge's item.
 * With `lazyIds` (readForView) node ids are indexed on first use and their repeats found then.
 */
function buildIndex(input: Record<string, unknown>, lazyIds: boolean): GraphIndex {
  const read = input as unknown as GraphDocument;
  const { doc, groups } = groupLeaves(read);

  const modules = new Map<string, ModuleCall>();
  const moduleChildren = new Map<string, string[]>();
  const moduleNodes = new Map<string, string[]>();
  doc.modules.forEach((m, i) => {
    if (modules.has(m.id)) throw new DocumentError(`Invalid graph document: modules[${i}].id ${JSON.stringify(m.id)} is the id of an earlier module too.`);
    modules.set(m.id, m);
    moduleChildren.set(m.id, []);
    moduleNodes.set(m.id, []);
  });
  const rootCall = doc.modules[0];
  if (rootCall.parent !== null) {
    throw new DocumentError(
      `Invalid graph document: modules[0].parent must be null (the first module call is the model's own), ` +
        `got ${JSON.stringify(rootCall.parent)} (module ${JSON.stringify(rootCall.id)}).`,
    );
  }
  const root = rootCall.id;
  doc.modules.forEach((m, i) => {
    if (m.parent === null) {
      if (m.id !== root) {
        throw new DocumentError(`Invalid graph document: modules[${i}].parent is null, but only the first module is the root (module ${JSON.stringify(m.id)}).`);
      }
      return;
    }
    const siblings = moduleChildren.get(m.parent);
    if (siblings === undefined) throw new DocumentError(dangling(`modules[${i}].parent`, m.parent, "module", `module ${JSON.stringify(m.id)}`));
    siblings.push(m.id);
  });
  // Depth-first preorder with a stack of its own: a model may nest 10,000 calls deep.
  const moduleDepth = new Map<string, number>();
  const order: string[] = [];
  const pending: [string, number][] = [[root, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [id, depth] = next;
    moduleDepth.set(id, depth);
    order.push(id);
    const children = moduleChildren.get(id) ?? [];
    for (let i = children.length - 1; i >= 0; i--) pending.push([children[i] as string, depth + 1]);
  }
  if (order.length !== modules.size) throw new DocumentError(cycleMessage(doc.modules, new Set(order)));

  const ids = lazyIds ? null : new Map<string, number>();
  const nodeIndex = new NodeIds(doc.nodes, ids);
  const failedNodes = new Set<string>();
  // Each module's first own node, by its index: the smallest in document order.
  const firstOwn = new Map<string, number>();
  // A plain loop over the long list: it runs on every node of a 100k-node document.
  for (let i = 0; i < doc.nodes.length; i++) {
    const n = doc.nodes[i] as Node;
    if (ids !== null) {
      // Every earlier id is distinct, so the Map grows by one unless this id is among them.
      ids.set(n.id, i);
      if (ids.size !== i + 1) throw repeatedId(doc.nodes, i);
    }
    const list = moduleNodes.get(n.module);
    if (list === undefined) {
      // readDocument names a repeated id at or before this node first.
      const repeat = ids === null ? nodeIndex.repeat() : -1;
      if (repeat >= 0 && repeat <= i) throw repeatedId(doc.nodes, repeat);
      throw new DocumentError(dangling(`nodes[${i}].module`, n.module, "module", `node ${JSON.stringify(n.id)}`));
    }
    if (list.length === 0) firstOwn.set(n.module, i);
    list.push(n.id);
    if (n.kind === "error" || n.error !== undefined) failedNodes.add(n.id);
  }
  const nodes = new NodesById(doc.nodes, nodeIndex);

  // In reverse preorder every call comes after its children, so theirs are known.
  const moduleFirstNode = new Map<string, number>();
  for (let k = order.length - 1; k >= 0; k--) {
    const id = order[k] as string;
    // A module's own nodes are listed in document order: the first is its smallest index.
    let best = firstOwn.get(id) ?? Number.POSITIVE_INFINITY;
    for (const c of moduleChildren.get(id) ?? []) best = Math.min(best, moduleFirstNode.get(c) ?? best);
    moduleFirstNode.set(id, best);
  }

  const folds = new Map<string, FoldGroup>();
  const foldOf = new Map<string, string>();
  for (const block of doc.repeated_blocks ?? []) addFold(block, modules, folds, foldOf);
  const glueOf = new Map<string, string>();
  // A glue id is the parent's when it is among the parent's own nodes (asked of its list, not of every node id).
  const own = new Map<string, Set<string>>();
  const ownOf = (parent: string): Set<string> => {
    let set = own.get(parent);
    if (set === undefined) {
      set = new Set(moduleNodes.get(parent));
      own.set(parent, set);
    }
    return set;
  };
  for (const fold of folds.values()) for (const id of fold.glue) if (ownOf(fold.parent).has(id)) glueOf.set(id, fold.key);
  const glueModuleOf = new Map<string, string>();
  for (const fold of folds.values()) {
    for (const id of fold.glueModules) if (!foldOf.has(id) && !glueModuleOf.has(id)) glueModuleOf.set(id, fold.key);
  }

  // The few ids named here are looked for in the list when the ids are not indexed yet.
  const named = new Set<string>();
  if (doc.error?.node !== undefined) named.add(doc.error.node);
  for (const tensor of doc.shared_tensors ?? []) for (const id of tensor.nodes) named.add(id);
  const isNode = ids !== null || named.size === 0 ? (id: string) => nodes.has(id) : presentIn(doc.nodes, named);
  if (doc.error?.node !== undefined && isNode(doc.error.node)) failedNodes.add(doc.error.node);

  const shared = new Map<string, SharedTensor>();
  for (const tensor of doc.shared_tensors ?? []) {
    for (const id of tensor.nodes) if (isNode(id)) shared.set(id, tensor);
  }

  return {
    doc,
    root,
    modules,
    moduleOrder: order,
    moduleChildren,
    moduleDepth,
    moduleNodes,
    moduleFirstNode,
    nodes,
    nodeIndex,
    edges: doc.edges,
    folds,
    foldOf,
    glueOf,
    glueModuleOf,
    failedNodes,
    groups,
    shared,
  };
}

/** Which of the `named` ids some node in `nodes` has, found in one pass over the list. */
function presentIn(nodes: readonly Node[], named: ReadonlySet<string>): (id: string) => boolean {
  const found = new Set<string>();
  for (const n of nodes) if (named.has(n.id)) found.add(n.id);
  return (id) => found.has(id);
}

/**
 * The document with the root's inputs and outputs grouped by name (see LeafGroup): a name
 * with at least LEAF_GROUP_MIN nested leaves (`cache.layers[0].keys`, …) becomes a
 * module call of its own, placed after the root's other children. Plain names (`logits`) stay.
 */
function groupLeaves(doc: GraphDocument): { doc: GraphDocument; groups: Map<string, LeafGroup> } {
  const groups = new Map<string, LeafGroup>();
  const root = doc.modules[0];
  if (root === undefined || root.parent !== null) return { doc, groups };
  const found = new Map<string, LeafGroup & { nodes: string[] }>();
  for (const n of doc.nodes) {
    if (n.module !== root.id || (n.kind !== "input" && n.kind !== "output")) continue;
    const name = /^([^.[]+)[.[]/.exec(n.name)?.[1];
    if (name === undefined) continue;
    const id = `g:${n.kind}:${name}`;
    const group = found.get(id);
    if (group === undefined) found.set(id, { id, kind: n.kind, name, nodes: [n.id] });
    else group.nodes.push(n.id);
  }
  const taken = new Set(doc.modules.map((m) => m.id));
  const moved = new Map<string, string>();
  const added: ModuleCall[] = [];
  for (const group of found.values()) {
    const { id, kind, name, nodes: members } = group;
    if (members.length < LEAF_GROUP_MIN || taken.has(id)) continue;
    groups.set(id, group);
    for (const n of members) moved.set(n, id);
    added.push({
      id,
      parent: root.id,
      path: name,
      name,
      class_name: name,
      class_qualname: leafGroupSize(group),
      call_index: 0,
      num_params: 0,
      num_params_own: 0,
      signature: id,
    });
  }
  if (added.length === 0) return { doc, groups };
  const nodes = doc.nodes.map((n) => {
    const group = moved.get(n.id);
    return group === undefined ? n : { ...n, module: group };
  });
  return { doc: { ...doc, modules: [...doc.modules, ...added], nodes }, groups };
}

function addFold(
  block: RepeatedBlock,
  modules: ReadonlyMap<string, ModuleCall>,
  folds: Map<string, FoldGroup>,
  foldOf: Map<string, string>,
): void {
  const members = block.modules.filter((id) => modules.get(id)?.parent === block.parent);
  // A run that does not match the tree, or overlaps another run, is shown unfolded.
  if (members.length < 2 || members.length !== block.modules.length) return;
  if (members.some((id) => foldOf.has(id))) return;
  const first = members[0];
  if (first === undefined) return;
  const glueModules = (block.glue_modules ?? []).filter((id) => modules.get(id)?.parent === block.parent);
  folds.set(first, { key: first, parent: block.parent, modules: members, glue: block.glue ?? [], glueModules });
  for (const id of members) foldOf.set(id, first);
}

const ITEM_NOUNS: Readonly<Record<string, string>> = {
  modules: "module",
  nodes: "node",
  edges: "edge",
  repeated_blocks: "repeated block",
};

/**
 * The message for a document that breaks the schema: the field's path and value, and which
 * module, node or edge it belongs to (its id, which the index in the path does not show).
 */
function explain(doc: Record<string, unknown>, problem: Problem): string {
  const [list, at] = problem.path;
  let owner = "";
  const item = typeof list === "string" && typeof at === "number" ? (doc[list] as unknown[])[at] : undefined;
  const noun = typeof list === "string" ? ITEM_NOUNS[list] : undefined;
  if (noun !== undefined && isObject(item) && problem.path.length > 2) {
    if (typeof item["id"] === "string") owner = ` (${noun} ${show(item["id"])})`;
    else if (typeof item["source"] === "string" && typeof item["target"] === "string") {
      owner = ` (${noun} ${show(item["source"])} -> ${show(item["target"])})`;
    }
  }
  return (
    `Invalid graph document: ${formatPath(problem.path)} ${problem.message}${owner}. ` +
    "Check the document with vista_core.validate_document(document)."
  );
}

/** The message for module calls the root does not reach: their parents loop; the loop named. */
function cycleMessage(modules: readonly ModuleCall[], reached: ReadonlySet<string>): string {
  const byId = new Map(modules.map((m, i) => [m.id, { m, i }]));
  const first = modules.findIndex((m) => !reached.has(m.id));
  const loop: string[] = [];
  const seen = new Set<string>();
  for (let id: string | null = modules[first]?.id ?? null; id !== null && !seen.has(id); id = byId.get(id)?.m.parent ?? null) {
    seen.add(id);
    loop.push(id);
  }
  const at = modules[first];
  return (
    `Invalid graph document: modules[${first}].parent is ${JSON.stringify(at?.parent)}, which makes the module ` +
    `calls a cycle instead of a tree (${[...loop, loop[0]].map((id) => JSON.stringify(id)).join(" -> ")}).`
  );
}

/** The message for a reference to an id that no module (node) has. */
function dangling(field: string, id: string, noun: string, owner: string): string {
  return `Invalid graph document: ${field} is ${JSON.stringify(id)}, which is no ${noun}'s id (${owner}).`;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}

/** Module ids from the root down to `moduleId` (inclusive). */
export function moduleAncestry(index: GraphIndex, moduleId: string): string[] {
  const chain: string[] = [];
  let current: string | null = moduleId;
  while (current !== null) {
    chain.push(current);
    current = index.modules.get(current)?.parent ?? null;
  }
  return chain.reverse();
}
