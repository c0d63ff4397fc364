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
  readonly showParameters: boolean;
  readonly showConstants: boolean;
}

export interface Filters {
  readonly showParameters: boolean;
  readonly showConstants: boolean;
}

/**
 * Module calls at depth < `depth` are open (the root is depth 0): depth 0 shows the model as
 * one closed box, depth 1 the root's children as closed boxes. A repeated run stays folded
 * ("×N") while its calls are closed, and is unfolded once the depth opens them.
 */
export function stateAtDepth(index: GraphIndex, depth: number, filters: Filters): ViewState {
  const open = new Set<string>();
  for (const id of index.moduleOrder) {
    if ((index.moduleDepth.get(id) ?? 0) < depth) open.add(id);
  }
  const unfolded = new Set<string>();
  for (const key of index.folds.keys()) if (open.has(key)) unfolded.add(key);
  return {
    open,
    unfolded,
    showParameters: filters.showParameters,
    showConstants: filters.showConstants,
  };
}

/** Every module call open and every repeated run unfolded. */
export function expandAll(index: GraphIndex, state: ViewState): ViewState {
  return { ...state, open: new Set(index.moduleOrder), unfolded: new Set(index.folds.keys()) };
}

/** Back to depth 1: the root open, everything below it closed, repeated runs folded. */
export function collapseAll(index: GraphIndex, state: ViewState): ViewState {
  return stateAtDepth(index, 1, state);
}

/** The deepest module depth plus one: the depth at which everything is open. */
export function maxDepth(index: GraphIndex): number {
  let max = 0;
  for (const d of index.moduleDepth.values()) max = Math.max(max, d);
  return max + 1;
}

/**
 * The +/− of a box. A folded "×N" box (id = its fold key) unfolds into its N boxes; an open
 * module closes; a closed one opens. Descendants keep their state, so reopening restores them.
 */
export function toggle(index: GraphIndex, state: ViewState, id: string): ViewState {
  if (!index.modules.has(id)) return state;
  const fold = index.folds.get(id);
  if (fold !== undefined && !state.unfolded.has(id)) {
    const unfolded = new Set(state.unfolded);
    unfolded.add(id);
    return { ...state, unfolded };
  }
  const open = new Set(state.open);
  if (open.has(id)) open.delete(id);
  else open.add(id);
  return { ...state, open };
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
  return { ...state, unfolded };
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
