import { beforeAll, describe, expect, it } from "vitest";
import { LayoutEngine } from "../src/layout/engine";
import { MAX_MEMBERS } from "../src/layout/segments";
import { alignSegments, spineOf } from "../src/layout/spines";
import type { LayoutResult } from "../src/layout/types";
import { readDocument, type GraphIndex } from "../src/model/document";
import { expandAll, stateAtDepth, toggle, type ViewState } from "../src/model/state";
import { graphvizRender, layWithFixedSizes as lay, stackedBlocks } from "./helpers";

let render: (dot: string) => string;

beforeAll(async () => {
  render = await graphvizRender();
});

const ALL = { showParameters: true, showConstants: true };

describe("a stack of segments", () => {
  it("moves nothing above a +/− and what is below it only down or up, as a fresh engine lays it out", () => {
    const blocks = 450;
    const index = readDocument(stackedBlocks(blocks));
    const engine = new LayoutEngine(render);
    const open = expandAll(index, stateAtDepth(index, 1, ALL));
    const root = [...index.modules.values()].find((m) => m.parent === null)?.id as string;
    const order = [...index.modules.values()].filter((m) => m.parent === root).map((m) => m.id);
    expect(order.length).toBeGreaterThan(MAX_MEMBERS);
    const before = lay(index, open, engine);
    // A block in the middle of a segment: Graphviz's layout of that segment comes back wider.
    const clicked = order[250] as string;
    const state = toggle(index, open, clicked);
    const after = lay(index, state, engine);
    expect(after).toEqual({ ...lay(index, state, new LayoutEngine(render)), stats: after.stats });
    const ownerOf = (id: string): string | undefined => {
      let m = index.nodes.get(id)?.module ?? index.modules.get(id)?.id;
      while (m !== undefined && index.modules.get(m)?.parent !== root) m = index.modules.get(m)?.parent ?? undefined;
      return m;
    };
    const place = new Map(order.map((id, i) => [id, i]));
    const moves = { above: new Set<string>(), below: new Set<string>() };
    let checked = 0;
    for (const [id, b] of Object.entries(after.rects)) {
      const a = before.rects[id];
      const block = ownerOf(id);
      if (a === undefined || block === undefined || block === clicked) continue;
      const at = place.get(block) as number;
      // Within the clicked block's segment Graphviz may move its neighbours: the rest is checked.
      if (Math.abs(at - 250) < 100) continue;
      checked++;
      if (at < 250) moves.above.add(`${b.x - a.x},${b.y - a.y}`);
      else moves.below.add(`${b.x - a.x}`);
    }
    expect(checked).toBeGreaterThan(1000);
    expect([...moves.above]).toEqual(["0,0"]);
    expect([...moves.below]).toEqual(["0"]);
  });

  it("line up on the x most of their elements are centred on", () => {
    const at = (x: number): { x: number; y: number } => ({ x, y: 0 });
    const local = (xs: number[], width: number) => ({ width, height: 10, nodes: new Map(xs.map((x, i) => [`e${i}`, at(x)])), edges: [] });
    expect(spineOf(local([50, 60, 50, 70], 120), 4)).toBe(50);
    expect(spineOf(local([], 120), 0)).toBe(60);
    // Two segments, one 20 wider on its right: Graphviz centred both; aligned, their spines meet.
    const aligned = alignSegments(local([60, 60], 120), [{ width: 100, height: 10, spine: 50 }, { width: 120, height: 10, spine: 50 }], []);
    expect(aligned.nodes.get("e0")?.x).toBe(50);
    expect(aligned.nodes.get("e1")?.x).toBe(60);
    expect(aligned.width).toBe(120);
  });
});
