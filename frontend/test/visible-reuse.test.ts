import { describe, expect, it } from "vitest";
import { readDocument, type GraphDocument, type GraphIndex } from "../src/model/document";
import { expandAll, refold, reveal, stateAtDepth, toggle, unfold, type ViewState } from "../src/model/state";
import { computeVisibleGraph, type VisibleGraph } from "../src/model/visible";
import { estimateText } from "../src/view/measure";
import { sizeVisibleGraph } from "../src/view/sizing";
import { fixture, ropeStack, stackedBlocks, withCacheOutputs } from "./helpers";

// The visible graph and its sizes keep per-document parts across clicks (visible.ts, sizing.ts):
// after any sequence of changes they must equal what a fresh index computes from nothing.

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const plain = (v: VisibleGraph): unknown => ({
  root: v.root,
  containers: [...v.containers.entries()],
  items: [...v.items.entries()],
  edges: v.edges,
  nodeOwner: [...v.nodeOwner.entries()],
  moduleOwner: [...v.moduleOwner.entries()],
});

function step(index: GraphIndex, state: ViewState, next: () => number): ViewState {
  const ids = index.moduleOrder;
  const id = ids[Math.floor(next() * ids.length)] as string;
  const r = next();
  if (r < 0.6) return toggle(index, state, id);
  if (r < 0.7) return unfold(index, state, index.foldOf.get(id) ?? id);
  if (r < 0.78) return refold(index, state, id);
  if (r < 0.86) return reveal(index, state, id);
  if (r < 0.9) return expandAll(index, state);
  if (r < 0.95) return { ...state, showParameters: !state.showParameters };
  return stateAtDepth(index, Math.floor(next() * 4), state);
}

const documents: [string, () => GraphDocument][] = [
  ["bert", () => fixture("bert")],
  ["failing", () => fixture("failing")],
  ["stacked blocks", () => stackedBlocks(6)],
  ["cache outputs", () => withCacheOutputs(6)],
  ["a Llama-like stack", () => ropeStack(6, true)],
  ["stacked blocks reading their input through an nn.Identity", () => withIdentity(stackedBlocks(4))],
];

/** `doc` with an nn.Identity call (m99) at the top that returns the input (n0): readers of n0 read it through its box. */
function withIdentity(doc: GraphDocument): GraphDocument {
  const T = { shape: [2, 4], dtype: "float32", device: "cpu" };
  const identity = { id: "m99", parent: "m0", path: "skip", name: "skip", class_name: "Identity", class_qualname: "t.Identity", call_index: 0, num_params: 0, num_params_own: 0, signature: "id",
    inputs: [{ name: "input", source: "n0", source_output: 0, tensor: T }], outputs: [{ name: "output", source: "n0", source_output: 0, tensor: T }] };
  return { ...doc, modules: [doc.modules[0], identity, ...doc.modules.slice(1)] as GraphDocument["modules"] };
}

describe("a visible graph computed again after changes", () => {
  for (const [name, make] of documents) {
    it(`equals a fresh computation after random changes (${name})`, () => {
      const doc = make();
      const warm = readDocument(structuredClone(doc));
      const measure = (text: string, size: number, weight?: number): number => estimateText(text, size, weight);
      for (let seed = 1; seed <= 6; seed++) {
        const next = random(seed);
        let state = stateAtDepth(warm, 1, { showParameters: true, showConstants: seed % 2 === 0 });
        // Half the walks start fully open, where most changes are one module opened or closed.
        if (seed > 3) state = expandAll(warm, state);
        for (let i = 0; i < 20; i++) {
          state = step(warm, state, next);
          const again = computeVisibleGraph(warm, state);
          const sized = sizeVisibleGraph(warm, again, measure);
          const cold = readDocument(structuredClone(doc));
          const fresh = computeVisibleGraph(cold, state);
          expect(plain(again)).toEqual(plain(fresh));
          const freshSized = sizeVisibleGraph(cold, fresh, (t, s, w) => estimateText(t, s, w));
          expect([...sized.looks.entries()]).toEqual([...freshSized.looks.entries()]);
          expect([...sized.headers.entries()]).toEqual([...freshSized.headers.entries()]);
          expect(sized.graph).toEqual(freshSized.graph);
        }
      }
    });
  }
});

describe("sizes measured again after changes", () => {
  it("follow a run's first call from \"1 of N\" to unfolded", () => {
    const doc = stackedBlocks(6);
    const warm = readDocument(structuredClone(doc));
    const key = [...warm.folds.keys()][0] as string;
    const measure = (text: string, size: number, weight?: number): number => estimateText(text, size, weight);
    let state = toggle(warm, stateAtDepth(warm, 1, { showParameters: true, showConstants: true }), key);
    for (const next of [state, (state = unfold(warm, state, key))]) {
      const sized = sizeVisibleGraph(warm, computeVisibleGraph(warm, next), measure);
      const cold = readDocument(structuredClone(doc));
      const fresh = sizeVisibleGraph(cold, computeVisibleGraph(cold, next), measure);
      expect([...sized.headers.entries()]).toEqual([...fresh.headers.entries()]);
    }
  });
});

describe("a visible graph after a +/−", () => {
  it("keeps the objects of what the click did not change", () => {
    const index = readDocument(stackedBlocks(40));
    const open = expandAll(index, stateAtDepth(index, 1, { showParameters: true, showConstants: true }));
    const before = computeVisibleGraph(index, open);
    const block = index.folds.values().next().value?.modules[20] as string;
    const after = computeVisibleGraph(index, toggle(index, open, block));
    expect(after.containers.has(block)).toBe(false);
    const kept = new Set(before.edges);
    const same = after.edges.filter((e) => kept.has(e)).length;
    expect(same).toBeGreaterThan(0.9 * after.edges.length);
    expect(same).toBeLessThan(after.edges.length);
    const items = [...after.items.values()].filter((item) => before.items.get(item.id) === item).length;
    expect(items).toBeGreaterThan(0.9 * after.items.size);
  });
});
