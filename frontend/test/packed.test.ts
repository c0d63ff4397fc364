import { beforeAll, describe, expect, it } from "vitest";
import { LayoutEngine } from "../src/layout/engine";
import { packGraph, packResult, unpackGraph, unpackResult } from "../src/layout/packed";
import { buildLayoutGraph } from "../src/layout/request";
import type { LayoutGraph, LayoutResult } from "../src/layout/types";
import { readDocument } from "../src/model/document";
import { formatShapes } from "../src/model/format";
import { expandAll, stateAtDepth } from "../src/model/state";
import { computeVisibleGraph } from "../src/model/visible";
import { fixture, graphvizRender, withCacheOutputs } from "./helpers";

let render: (dot: string) => string;

beforeAll(async () => {
  render = await graphvizRender();
});

/** The result as it arrives on the other side of a worker's postMessage with its transfer list. */
function sent(result: LayoutResult): LayoutResult {
  const { packed, transfer } = packResult(result);
  const arrived = structuredClone(packed, { transfer });
  // Transferred, not copied: the sender's buffers are emptied.
  for (const b of transfer) expect(b.byteLength).toBe(0);
  return unpackResult(arrived);
}

describe("packed layout results", () => {
  for (const [name, doc] of [
    ["BERT", fixture("bert")],
    ["a model with its cache in a group of outputs", withCacheOutputs(6)],
  ] as const) {
    it(`arrive equal to the result of ${name}, fully open`, () => {
      const index = readDocument(doc);
      const v = computeVisibleGraph(index, expandAll(index, stateAtDepth(index, 1, { showParameters: true, showConstants: true })));
      const graph = buildLayoutGraph(
        v,
        { item: (id) => ({ width: 60 + id.length * 3, height: 26 }), header: () => ({ height: 40, minWidth: 120, control: 40 }) },
        (e) => formatShapes(e.tensors),
      );
      const result = new LayoutEngine(render).layout(graph);
      expect(result.edges.some((e) => e.label !== null)).toBe(true);
      expect(result.edges.some((e) => e.label === null)).toBe(true);
      const copy = structuredClone(result);
      expect(sent(result)).toEqual(copy);
    });
  }

  it("keep ids and label texts of any characters, empty routes and labels, and an empty result", () => {
    const result: LayoutResult = {
      width: 10.25,
      height: -0,
      rects: { "": { x: 1, y: 2, width: 3, height: 4 }, "a\u0000b": { x: -1.5, y: 1e-9, width: 0, height: 7 }, "😀é": { x: 5, y: 6, width: 7, height: 8 }, "12": { x: 0, y: 0, width: 1, height: 1 } },
      edges: [
        { id: "e\u0000😀", points: [], label: { x: 3, y: 4, text: "" } },
        { id: "", points: [{ x: 0.1, y: 0.2 }], label: null },
        { id: "x", points: [{ x: 1, y: 2 }, { x: 3, y: 4 }, { x: 5, y: 6 }, { x: 7, y: 8 }], label: { x: NaN, y: 9, text: "1×16×64, 😀" } },
      ],
      stats: { graphvizRuns: 2, cacheHits: 3, milliseconds: 4.5 },
    };
    const copy = structuredClone(result);
    expect(sent(result)).toEqual(copy);
    const empty: LayoutResult = { width: 0, height: 0, rects: {}, edges: [], stats: { graphvizRuns: 0, cacheHits: 0, milliseconds: 0 } };
    expect(sent(empty)).toEqual(structuredClone(empty));
  });
});

describe("packed layout requests", () => {
  it("arrive equal to BERT's request, fully open", () => {
    const index = readDocument(fixture("bert"));
    const v = computeVisibleGraph(index, expandAll(index, stateAtDepth(index, 1, { showParameters: true, showConstants: true })));
    const graph = buildLayoutGraph(
      v,
      { item: (id) => ({ width: 60 + id.length * 3, height: 26 }), header: (id) => ({ height: 40, minWidth: 120 + id.length, control: 40, title: id.length }) },
      (e) => formatShapes(e.tensors),
    );
    expect(graph.containers.length).toBeGreaterThan(1);
    expect(unpackGraph(structuredClone(packGraph(graph)))).toStrictEqual(structuredClone(graph));
  });

  it("keep ids of any characters, null parents, empty members, absent titles and an empty request", () => {
    const graph: LayoutGraph = {
      root: "r\u0000😀",
      items: [
        { id: "", width: 0.5, height: -0 },
        { id: "é😀", width: 1e-9, height: 7 },
      ],
      containers: [
        { id: "r\u0000😀", parent: null, members: ["", "c"], header: 40, minWidth: 100, control: 0 },
        { id: "c", parent: "r\u0000😀", members: [], header: 0, minWidth: 0, control: 16, title: 12.5 },
        { id: "d", parent: "", members: ["é😀"], header: 1, minWidth: 2, control: 3, title: 0 },
      ],
      edges: [
        { id: "a>b", source: "a", target: "b", label: "" },
        { id: "", source: "", target: "é😀", label: "1×16×64, 😀" },
      ],
    };
    expect(unpackGraph(structuredClone(packGraph(graph)))).toStrictEqual(structuredClone(graph));
    const empty: LayoutGraph = { root: "", items: [], containers: [], edges: [] };
    expect(unpackGraph(structuredClone(packGraph(empty)))).toStrictEqual(empty);
  });
});
