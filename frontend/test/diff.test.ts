import { describe, expect, it } from "vitest";
import { DocumentError } from "../src/model/document";
import { changeTarget, edgeMark, formatValue, isDiffDocument, itemMark, readDiffDocument } from "../src/model/diff";
import { stateAtDepth, unfold } from "../src/model/state";
import { computeVisibleGraph } from "../src/model/visible";
import { stackDiff, stackedBlocks } from "./helpers";

const ALL = { showParameters: true, showConstants: true };

describe("readDiffDocument", () => {
  it("finds each element's change by id in the union, in a and in b", () => {
    const d = readDiffDocument(stackDiff());
    expect(d.changes).toHaveLength(12);
    expect(d.union.byId.get("m5")?.status).toBe("added");
    expect(d.union.byId.get("n2")?.status).toBe("changed");
    expect(d.union.byId.has("n1")).toBe(false);
    expect(d.a.byId.get("n2")?.status).toBe("changed");
    expect(d.a.byId.has("m5")).toBe(false); // added: not in a
    expect(d.b.byId.get("m5")?.status).toBe("added");
    expect(d.union.byEdge.get("n6:0->n10:0")?.status).toBe("removed");
    expect(d.a.byEdge.get("n6:0->n7:0")?.status).toBe("removed");
    expect(d.b.byEdge.has("n6:0->n10:0")).toBe(false);
  });

  it("counts the changes inside each module call's subtree, not its own; an edge in the call holding both ends", () => {
    const d = readDiffDocument(stackDiff());
    const inside = (id: string) => d.union.inside.get(id)?.size ?? 0;
    expect(inside("m1")).toBe(1);
    expect(inside("m2")).toBe(1);
    // m6, n7-n9, and the edges n7 -> n8 (in m6) and n8 -> n9 (in m5); the edges from block 1 lie in the root.
    expect(inside("m5")).toBe(1 + 3 + 2);
    expect(inside("m6")).toBe(2 + 1);
    expect(inside("m3")).toBe(0); // block 1 is unchanged: the edges leaving it lie in the root
    expect(inside("m0")).toBe(12); // the root: every change
  });

  it("maps matched ids both ways and union ids to each side", () => {
    const d = readDiffDocument(stackDiff());
    expect(d.aToB.get("n7")).toBe("n10");
    expect(d.bToA.get("n10")).toBe("n7");
    expect(d.unionTo.a.get("n10")).toBe("n7");
    expect(d.unionTo.b.get("m5")).toBe("m5");
    expect(d.unionTo.a.has("m5")).toBe(false);
    expect(d.toUnion.a.get("n7")).toBe("n10");
  });

  it("refuses another diff_version major, naming both, and a broken part naming it", () => {
    expect(() => readDiffDocument({ ...stackDiff(), diff_version: "2.0" })).toThrow(DocumentError);
    expect(() => readDiffDocument({ ...stackDiff(), diff_version: "2.0" })).toThrow(/"2\.0".*1\.x/);
    expect(() => readDiffDocument({ ...stackDiff(), union: undefined })).toThrow(/"union" must be a graph document/);
    // a and b are read when first used (side by side), and named then.
    const later = readDiffDocument({ ...stackDiff(), b: { ...stackedBlocks(2), schema_version: "9.0" } });
    expect(later.union.byId.get("m5")?.status).toBe("added");
    expect(() => later.b).toThrow(/its "b" graph: Unsupported schema_version "9\.0"/);
    expect(() => readDiffDocument({ ...stackDiff(), a: 3 })).toThrow(/"a" must be a graph document/);
    const bad = stackDiff();
    (bad["changes"] as Record<string, unknown>[])[3]!["status"] = "moved";
    expect(() => readDiffDocument(bad)).toThrow(/changes\[3\]\.status must be "added", "removed" or "changed", got "moved"/);
  });

  it("tells diff documents from graph documents", () => {
    expect(isDiffDocument(stackDiff())).toBe(true);
    expect(isDiffDocument(stackedBlocks(2))).toBe(false);
    expect(isDiffDocument(null)).toBe(false);
  });
});

describe("marks of drawn items", () => {
  it("a folded run holding an added call shows the changes inside, not a status of its own", () => {
    const d = readDiffDocument(stackDiff());
    const index = d.union.index;
    const v = computeVisibleGraph(index, stateAtDepth(index, 1, ALL));
    const run = v.items.get("m1");
    expect(run?.type === "box" && run.members).toEqual(["m1", "m3", "m5"]);
    const mark = itemMark(d.union, run?.type === "box" ? run.members : []);
    expect(mark.status).toBeNull();
    // m1's one, m5 itself and its six.
    expect(mark.inside).toBe(1 + 1 + 6);
    // Unfolded, each call is a box of its own: the added one says so.
    const open = computeVisibleGraph(index, unfold(index, stateAtDepth(index, 1, ALL), "m1"));
    expect(open.items.has("m5")).toBe(true);
    expect(itemMark(d.union, ["m5"])).toEqual({ status: "added", inside: 6 });
    expect(itemMark(d.union, ["n1"])).toEqual({ status: null, inside: 0 });
  });

  it("a drawn edge merging plain and added edges reads as changed", () => {
    const d = readDiffDocument(stackDiff());
    expect(edgeMark(d.union, ["n7:0->n8:1"])).toBe("added");
    expect(edgeMark(d.union, ["n7:0->n8:1", "n6:0->n8:0"])).toBe("added");
    expect(edgeMark(d.union, ["n7:0->n8:1", "n0:0->n2:0"])).toBe("changed");
    expect(edgeMark(d.union, ["n7:0->n8:1", "n6:0->n10:0"])).toBe("changed");
    expect(edgeMark(d.union, ["n0:0->n2:0"])).toBeNull();
  });

  it("a change is shown at its element, an edge's at its target node, in each graph", () => {
    const d = readDiffDocument(stackDiff());
    const removed = d.changes[11]!;
    expect(changeTarget(d, removed, null)).toBe("n10");
    expect(changeTarget(d, removed, "a")).toBe("n7");
    expect(changeTarget(d, removed, "b")).toBeNull();
    expect(changeTarget(d, d.changes[1]!, "a")).toBeNull();
    expect(changeTarget(d, d.changes[1]!, "b")).toBe("m5");
  });

  it("formats changed values as the details panel shows them", () => {
    expect(`${formatValue([1, 12, 768])} → ${formatValue([1, 12, 1024])}`).toBe("1×12×768 → 1×12×1024");
    expect(formatValue("GELU")).toBe("GELU");
    expect(formatValue(1234567)).toBe("1,234,567");
    expect(formatValue(null)).toBe("none");
    expect(formatValue({ p: 0.1 })).toBe('{"p":0.1}');
    expect(formatValue({ name: "keys", shape: [1, 2, 8, 16], dtype: "float32", device: "cpu" })).toBe("1×2×8×16 · float32");
  });
});
