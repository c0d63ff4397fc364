/**
 * The open/closed state of the graph: which module calls are open and which repeated runs
 * are unfolded, plus the node filters. Immutable values; every change returns a new state.
 */
import { moduleAncestry, type GraphIndex } from "./document";

export interface ViewState {
  /** Open module calls: their contents are drawn inside their box. */
  readonly open: ReadonlySet<string>;
  /** Keys of repeated runs shown as separate boxes instead of one "×N" box. */
  readonly unfolded: ReadonlySet<string>;
  /** Keys of repeated runs shown by their first call open ("1 of N"), the other calls in one box. */
  readonly peek: ReadonlySet<string>;
  readonly showParameters: boolean;
  readonly showConstants: boolean;
}

export interface Filters {
  readonly showParameters: boolean;
  readonly showConstants: boolean;
}

/** torch.nn classes that only hold other modules: they are the model's own levels, not leaves. */
const TORCH_CONTAINERS: ReadonlySet<string> = new Set(["Sequential", "ModuleList", "ModuleDict"]);

/** A call of a torch.nn module other than a container (a Linear, a LayerNorm): a leaf of the model. */
export function isTorchLeaf(index: GraphIndex, id: string): boolean {
  const m = index.modules.get(id);
  return m !== undefined && m.class_qualname.startsWith("torch.nn.") && !TORCH_CONTAINERS.has(m.class_name);
}

/**
 * Whether the depth control may open `id`: not a torch.nn leaf, nor inside one, nor a group of
 * the model's inputs or outputs (no level of the model: opened by Open modules, a 32-layer
 * Llama's 64 cache outputs stood in one row six times as wide as its layers).
 */
function opensByDepth(index: GraphIndex, id: string): boolean {
  if (index.groups.has(id)) return false;
  for (let at: string | null = id; at !== null; at = index.modules.get(at)?.parent ?? null) {
    if (isTorchLeaf(index, at)) return false;
  }
  return true;
}

/**
 * Module calls at depth < `depth` are open (the root is depth 0): depth 0 shows the model as
 * one closed box, depth 1 the root's children as closed boxes. Depth counts the model's own
 * levels: torch.nn leaf modules (a Linear) stay boxes. A repeated run stays one "×N" box
 * while its calls are closed; once the depth opens them it shows its first call open ("1 of
 * N") and the others in one box, never unfolding by itself.
 */
export function stateAtDepth(index: GraphIndex, depth: number, filters: Filters): ViewState {
  const open = new Set<string>();
  for (const id of index.moduleOrder) {
    if ((index.moduleDepth.get(id) ?? 0) < depth && opensByDepth(index, id)) open.add(id);
  }
  const peek = new Set<string>();
  for (const key of index.folds.keys()) if (open.has(key)) peek.add(key);
  return {
    open,
    unfolded: new Set<string>(),
    peek,
    showParameters: filters.showParameters,
    showConstants: filters.showConstants,
  };
}

/** "Open modules": every module of the model open down to torch.nn leaves, runs shown by their first call. */
export function openModules(index: GraphIndex, state: ViewState): ViewState {
  return stateAtDepth(index, maxDepth(index), state);
}

/** "Open everything": every module call open and every repeated run unfolded. */
export function expandAll(index: GraphIndex, state: ViewState): ViewState {
  return { ...state, open: new Set(index.moduleOrder), unfolded: new Set(index.folds.keys()), peek: new Set<string>() };
}

/** Back to depth 1: the root open, everything below it closed, repeated runs folded. */
export function collapseAll(index: GraphIndex, state: ViewState): ViewState {
  return stateAtDepth(index, 1, state);
}

/** The depth at which every module the depth control opens is open: the model's deepest level plus one. */
export function maxDepth(index: GraphIndex): number {
  let max = 0;
  for (const [id, d] of index.moduleDepth) if (opensByDepth(index, id)) max = Math.max(max, d);
  return max + 1;
}

/**
 * The +/− of a box. A folded "×N" box (id = its fold key) opens to its first call open and
 * the other calls in one box, whose + unfolds the run into its N boxes; the first call's −
 * folds it again. An open module closes; a closed one opens. Descendants keep their state,
 * so reopening restores them.
 */
export function toggle(index: GraphIndex, state: ViewState, id: string): ViewState {
  if (!index.modules.has(id)) return state;
  const fold = index.folds.get(id);
  if (fold !== undefined && !state.unfolded.has(id)) {
    // "×N" opens to its first call open ("1 of N"); its − folds the run again.
    const peek = new Set(state.peek);
    if (peek.has(id)) {
      peek.delete(id);
      return { ...state, peek };
    }
    peek.add(id);
    const open = new Set(state.open);
    open.add(id);
    return { ...state, peek, open };
  }
  const key = index.foldOf.get(id);
  if (key !== undefined && key !== id && state.peek.has(key) && !state.unfolded.has(key) && index.folds.get(key)?.modules[1] === id) {
    return unfold(index, state, key);
  }
  const open = new Set(state.open);
  if (open.has(id)) open.delete(id);
  else open.add(id);
  return { ...state, open };
}

/** Unfolds the run `key` into its N calls, each its own box. */
export function unfold(index: GraphIndex, state: ViewState, key: string): ViewState {
  if (!index.folds.has(key)) return state;
  const unfolded = new Set(state.unfolded);
  unfolded.add(key);
  const peek = new Set(state.peek);
  peek.delete(key);
  return { ...state, unfolded, peek };
}

/**
 * Folds the unfolded run that module `id` belongs to back into its "×N" box. Its calls keep
 * their open state, so unfolding it again restores them.
 */
export function refold(index: GraphIndex, state: ViewState, id: string): ViewState {
  const key = index.foldOf.get(id);
  if (key === undefined || !state.unfolded.has(key)) return state;
  const unfolded = new Set(state.unfolded);
  unfolded.delete(key);
  const peek = new Set(state.peek);
  peek.delete(key);
  return { ...state, unfolded, peek };
}

/** Whether the box `id` is currently a folded "×N" box. */
export function isFolded(index: GraphIndex, state: ViewState, id: string): boolean {
  return index.folds.has(id) && !state.unfolded.has(id);
}

/**
 * Opens what hides `id` (a node or module id): every ancestor module call is opened and every
 * repeated run containing it (or, for glue, folded around it) is unfolded. The module itself
 * stays as it is.
 */
export function reveal(index: GraphIndex, state: ViewState, id: string): ViewState {
  let moduleId: string;
  let includeSelf: boolean;
  const node = index.nodes.get(id);
  if (node !== undefined) {
    moduleId = node.module;
    includeSelf = true;
  } else if (index.modules.has(id)) {
    moduleId = id;
    includeSelf = false;
  } else {
    return state;
  }
  const chain = moduleAncestry(index, moduleId);
  const open = new Set(state.open);
  const unfolded = new Set(state.unfolded);
  const glue = index.glueOf.get(id);
  if (glue !== undefined) unfolded.add(glue);
  chain.forEach((m, i) => {
    const fold = index.foldOf.get(m) ?? index.glueModuleOf.get(m);
    if (fold !== undefined) unfolded.add(fold);
    if (includeSelf || i < chain.length - 1) open.add(m);
  });
  return { ...state, open, unfolded };
}
