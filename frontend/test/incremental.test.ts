import { beforeAll, describe, expect, it } from "vitest";
import { LayoutEngine } from "../src/layout/engine";
import type { LayoutResult } from "../src/layout/types";
import { readDocument, type GraphIndex } from "../src/model/document";
import { collapseAll, expandAll, stateAtDepth, toggle, unfold, type ViewState } from "../src/model/state";
import { computeVisibleGraph } from "../src/model/visible";
import { fixture, graphvizRender, layWithFixedSizes as lay, ropeStack, stackedBlocks, withCacheOutputs } from "./helpers";

let render: (dot: string) => string;

beforeAll(async () => {
  render = await graphvizRender();
});

const ALL = { showParameters: true, showConstants: true };

const geometry = (r: LayoutResult): unknown => ({ width: r.width, height: r.height, rects: r.rects, edges: r.edges });

describe("incremental layout", () => {
  for (const [name, doc, clicks] of [
    ["24 stacked blocks", stackedBlocks(24), ["m9", "m3", "m9", "m20"]],
    ["BERT", fixture("bert"), ["m3", "m5", "m3"]],
    ["a model with its cache in a group of outputs", withCacheOutputs(12), ["m2", "m4", "m2"]],
  ] as const) {
    it(`gives after each click of ${name} what a fresh engine gives for the same state`, () => {
      const index = readDocument(doc);
      const engine = new LayoutEngine(render);
      let state = expandAll(index, stateAtDepth(index, 1, ALL));
      lay(index, state, engine);
      for (const id of clicks) {
        expect(index.modules.has(id), id).toBe(true);
        state = toggle(index, state, id);
        const clicked = lay(index, state, engine);
        const fresh = lay(index, state, new LayoutEngine(render));
        expect(geometry(clicked)).toEqual(geometry(fresh));
      }
    });
  }

  // A walk of random actions, each state laid out by the engine that laid out the one before and
  // by a fresh one: containers appear and go (blocks, runs unfolded into segments of a long
  // module), edges change ends, parameters come and go, and the results must agree exactly.
  for (const [name, doc, seed] of [
    ["BERT", fixture("bert"), 1],
    ["260 stacked blocks (segments)", stackedBlocks(260), 2],
    ["a Llama-like stack read by every layer", ropeStack(30, true), 3],
    ["a model with its cache in a group of outputs", withCacheOutputs(12), 4],
  ] as const) {
    it(`gives what a fresh engine gives along a random walk of actions on ${name}`, () => {
      const index = readDocument(doc);
      const engine = new LayoutEngine(render);
      const random = lcg(seed);
      let state = stateAtDepth(index, 1, ALL);
      let grow = 0;
      lay(index, state, engine);
      const actions: string[] = [];
      for (let step = 0; step < 16; step++) {
        const roll = random();
        const visible = computeVisibleGraph(index, state);
        const drawn = [...visible.containers.keys(), ...[...visible.items.values()].filter((i) => i.type === "box").map((i) => i.id)].filter((id) => index.modules.has(id));
        if (roll < 0.08) {
          state = expandAll(index, state);
          actions.push("expand all");
        } else if (roll < 0.12) {
          state = collapseAll(index, state);
          actions.push("collapse all");
        } else if (roll < 0.18) {
          state = { ...state, showParameters: !state.showParameters };
          actions.push("parameters");
        } else if (roll < 0.22) {
          grow = grow === 0 ? 6 : 0;
          actions.push("measured again");
        } else if (roll < 0.3 && index.folds.size > 0) {
          const key = [...index.folds.keys()][Math.floor(random() * index.folds.size)] as string;
          state = unfold(index, state, key);
          actions.push(`unfold ${key}`);
        } else if (drawn.length > 0) {
          const id = drawn[Math.floor(random() * drawn.length)] as string;
          state = toggle(index, state, id);
          actions.push(`toggle ${id}`);
        }
        const clicked = lay(index, state, engine, grow);
        const fresh = lay(index, state, new LayoutEngine(render), grow);
        expect(geometry(clicked), actions.join(", ")).toEqual(geometry(fresh));
      }
    });
  }
});

/** A small seeded generator of numbers in [0, 1), so a failing walk can be walked again. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
