import { beforeAll, describe, expect, it } from "vitest";
import { LayoutEngine } from "../src/layout/engine";
import type { LayoutResult } from "../src/layout/types";
import { readDocument, type GraphIndex } from "../src/model/document";
import { expandAll, stateAtDepth, toggle, type ViewState } from "../src/model/state";
import { fixture, graphvizRender, layWithFixedSizes as lay, stackedBlocks, withCacheOutputs } from "./helpers";

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

});
