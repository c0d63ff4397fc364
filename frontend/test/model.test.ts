import { describe, expect, it } from "vitest";
import { DocumentError, readDocument } from "../src/model/document";
import { formatCount, formatShape, formatShapes } from "../src/model/format";
import { search } from "../src/model/search";
import { collapseAll, expandAll, isTorchLeaf, maxDepth, openModules, refold, reveal, stateAtDepth, toggle, unfold } from "../src/model/state";
import { computeVisibleGraph } from "../src/model/visible";
import { fixture, stackedBlocks, withCacheOutputs } from "./helpers";

const ALL = { showParameters: true, showConstants: true };

describe("readDocument", () => {
  it("indexes the module tree of a vista-core document", () => {
    const index = readDocument(fixture("mlp"));
    expect(index.root).toBe("m0");
    expect(index.moduleChildren.get("m0")).toEqual(["m1", "m2", "m3"]);
    expect(index.moduleDepth.get("m3")).toBe(1);
    expect(index.moduleNodes.get("m1")).toEqual(["n1", "n2", "n3"]);
  });

  it("rejects another schema major version, naming both versions", () => {
    const doc = { ...fixture("mlp"), schema_version: "2.0" };
    expect(() => readDocument(doc)).toThrow(DocumentError);
    expect(() => readDocument(doc)).toThrow(/"2\.0".*1\.x/);
  });

  it("reads a newer minor version, ignoring the fields it does not know", () => {
    // Fields a 1.1 writer adds (cost, timing, statistics) in the document, nodes, modules and edges.
    const plain = fixture("mlp");
    const doc = JSON.parse(JSON.stringify(plain)) as Record<string, unknown> & typeof plain;
    doc.schema_version = "1.1";
    doc["totals"] = { flops: 48 };
    for (const n of doc.nodes) Object.assign(n, { flops: 16, stats: { min: -1, max: 2 } });
    for (const m of doc.modules) Object.assign(m, { flops: 48, param_bytes: 64 });
    for (const e of doc.edges) Object.assign(e, { bytes: 32 });
    const index = readDocument(doc);
    const before = readDocument(plain);
    expect(index.moduleOrder).toEqual(before.moduleOrder);
    expect([...index.moduleChildren]).toEqual([...before.moduleChildren]);
    expect(index.edges.length).toBe(before.edges.length);
    const v = computeVisibleGraph(index, stateAtDepth(index, 1, ALL));
    const w = computeVisibleGraph(before, stateAtDepth(before, 1, ALL));
    expect(v.edges.map((e) => e.id)).toEqual(w.edges.map((e) => e.id));
  });

  it("rejects non-objects and dangling references with a message naming them", () => {
    expect(() => readDocument("x")).toThrow(/expected a JSON object, got string/);
    const doc = fixture("mlp");
    doc.edges.push({ ...doc.edges[0]!, target: "n999" });
    expect(() => readDocument(doc)).toThrow(/edges\[\d+\].target is "n999", which is no node.s id/);
  });

  it("marks the failed node from the node error and the document error", () => {
    // fails_in_cat: torch.cat (n12, in the root) raises on mismatched sizes.
    const index = readDocument(fixture("failing"));
    expect([...index.failedNodes]).toEqual(["n12"]);
  });

  it("keeps repeated runs as fold groups keyed by their first module", () => {
    const index = readDocument(stackedBlocks(5));
    expect([...index.folds.keys()]).toEqual(["m1"]);
    expect(index.folds.get("m1")?.modules).toEqual(["m1", "m3", "m5", "m7", "m9"]);
    expect(index.foldOf.get("m9")).toBe("m1");
  });
});

describe("visible graph", () => {
  it("at depth 1 shows the root's children as boxes and attaches edges to them", () => {
    const index = readDocument(fixture("mlp"));
    const v = computeVisibleGraph(index, stateAtDepth(index, 1, ALL));
    expect(v.root).toBe("m0");
    const kinds = [...v.items.values()].map((i) => (i.type === "node" ? i.node.kind : `box:${i.id}`));
    expect(kinds.sort()).toEqual(["box:m1", "box:m2", "box:m3", "input", "output"].sort());
    expect(v.edges.map((e) => e.id)).toEqual(["n0>m1", "m1>m2", "m2>m3", "m3>n8"]);
    expect(v.nodeOwner.get("n1")).toBe("m1");
  });

  it("at depth 0 shows the model as a single box", () => {
    const index = readDocument(fixture("mlp"));
    const v = computeVisibleGraph(index, stateAtDepth(index, 0, ALL));
    expect(v.root).toBeNull();
    expect([...v.items.keys()]).toEqual(["m0"]);
    expect(v.edges).toEqual([]);
  });

  it("opening a module shows its nodes inside it and reroutes edges to them", () => {
    const index = readDocument(fixture("mlp"));
    const v = computeVisibleGraph(index, toggle(index, stateAtDepth(index, 1, ALL), "m1"));
    expect(v.containers.get("m1")?.members).toEqual(["n1", "n2", "n3"]);
    expect(v.edges.map((e) => e.id)).toContain("n0>n3");
    expect(v.edges.map((e) => e.id)).toContain("n3>m2");
  });

  it("merges parallel edges between the same two items and keeps each distinct shape", () => {
    const doc = fixture("failing");
    const index = readDocument(doc);
    const v = computeVisibleGraph(index, stateAtDepth(index, 0, ALL));
    expect(v.edges).toEqual([]);
    // Three edges from the input n0 to the failed cat n12 (both in the root) are one visible
    // edge: two of one shape, one of another.
    for (const [port, shape, dtype] of [[2, [3, 6], "float32"], [3, [9], "int64"], [4, [3, 6], "float32"]] as const) {
      doc.edges.push({ source: "n0", source_output: 0, target: "n12", target_input: port, tensor: { shape: [...shape], dtype, device: "cpu" } });
    }
    const i2 = readDocument(doc);
    const e = computeVisibleGraph(i2, stateAtDepth(i2, 1, ALL)).edges.find((x) => x.id === "n0>n12");
    expect(e?.edges.length).toBe(3);
    expect(formatShapes(e?.tensors ?? [])).toBe("3×6, 9");
  });

  it("hides parameters and constants when the options say so, with their edges", () => {
    const index = readDocument(fixture("mlp"));
    const open = expandAll(index, stateAtDepth(index, 1, ALL));
    const hidden = computeVisibleGraph(index, { ...open, showParameters: false });
    const kinds = [...hidden.items.values()].map((i) => (i.type === "node" ? i.node.kind : "box"));
    expect(kinds).not.toContain("parameter");
    expect(hidden.edges.some((e) => e.source === "n1")).toBe(false);
    const shown = computeVisibleGraph(index, open);
    expect(shown.edges.some((e) => e.source === "n1")).toBe(true);
  });

  it("folds a repeated run into one ×N box and unfolds it on toggle", () => {
    const index = readDocument(stackedBlocks(24));
    const folded = stateAtDepth(index, 1, ALL);
    const v = computeVisibleGraph(index, folded);
    const box = v.items.get("m1");
    expect(box?.type === "box" && box.repeat).toBe(24);
    expect([...v.items.values()].filter((i) => i.type === "box")).toHaveLength(1);
    expect(v.edges.map((e) => e.id)).toEqual(["n0>m1", "m1>n73"]);
    const unfolded = computeVisibleGraph(index, unfold(index, folded, "m1"));
    expect([...unfolded.items.values()].filter((i) => i.type === "box")).toHaveLength(24);
    expect(unfolded.edges.map((e) => e.id)).toContain("m1>m3");
  });

  it("refold folds an unfolded run back from any of its calls, keeping what was open inside", () => {
    const index = readDocument(stackedBlocks(4));
    const unfolded = unfold(index, stateAtDepth(index, 1, ALL), "m1");
    const members = index.folds.get("m1")?.modules ?? [];
    expect(members).toHaveLength(4);
    const third = members[2] as string;
    const opened = toggle(index, unfolded, third);
    const v = computeVisibleGraph(index, opened);
    // Every call of the unfolded run offers to fold the 4 back (boxes and open ones alike).
    expect(v.items.get(members[0] as string)).toMatchObject({ type: "box", repeat: 1, run: 4 });
    expect(v.containers.get(third)?.run).toBe(4);
    const back = refold(index, opened, third);
    expect(computeVisibleGraph(index, back).items.get("m1")).toMatchObject({ type: "box", repeat: 4, run: 0 });
    // Unfolding again restores the open call.
    expect(computeVisibleGraph(index, unfold(index, back, "m1")).containers.has(third)).toBe(true);
    // A call outside any run, or a run already folded, is left as it is.
    expect(refold(index, back, "m1")).toBe(back);
    expect(refold(index, opened, "m0")).toBe(opened);
  });

  it("depth opens a run to its first call and never unfolds it; collapseAll folds it again", () => {
    const index = readDocument(stackedBlocks(3));
    const deep = stateAtDepth(index, 2, ALL);
    expect(deep.unfolded.has("m1")).toBe(false);
    const v = computeVisibleGraph(index, deep);
    expect(v.containers.get("m1")).toMatchObject({ peek: 3 });
    expect(v.containers.has("m3")).toBe(false);
    const rest = [...v.items.values()].find((i) => i.type === "box" && i.repeat === 2);
    expect(rest).toBeDefined();
    const back = collapseAll(index, expandAll(index, deep));
    expect(computeVisibleGraph(index, back).items.get("m1")).toMatchObject({ type: "box", repeat: 3 });
  });

  it("+ on a ×N box shows one call open and the rest in a box whose + unfolds the run; − folds it", () => {
    const index = readDocument(stackedBlocks(4));
    const folded = stateAtDepth(index, 1, ALL);
    const peeked = toggle(index, folded, "m1");
    const v = computeVisibleGraph(index, peeked);
    expect(v.containers.get("m1")).toMatchObject({ peek: 4 });
    const rest = [...v.items.values()].find((i) => i.type === "box" && i.repeat === 3);
    expect(rest?.type === "box" ? rest.members : []).toHaveLength(3);
    // Every document edge is still drawn somewhere, none inside one drawn item.
    expect(v.edges.reduce((n, e) => n + e.edges.length, 0)).toBeGreaterThan(0);
    for (const e of v.edges) expect(e.source).not.toBe(e.target);
    const all = computeVisibleGraph(index, toggle(index, peeked, rest?.id ?? ""));
    expect([...all.items.values()].filter((i) => i.type === "box" && i.module.class_name === "Block")).toHaveLength(3);
    expect(all.containers.has("m1")).toBe(true);
    expect(computeVisibleGraph(index, toggle(index, peeked, "m1")).items.get("m1")).toMatchObject({ type: "box", repeat: 4 });
  });

  it("open modules stops at torch.nn layers and depth does not count inside them", () => {
    const doc = stackedBlocks(2) as { modules: { class_qualname: string; class_name: string }[] };
    for (const m of doc.modules) if (m.class_name === "Linear") m.class_qualname = "torch.nn.modules.linear.Linear";
    const index = readDocument(doc);
    const lin = [...index.modules.values()].find((m) => m.class_name === "Linear")?.id ?? "";
    expect(isTorchLeaf(index, lin)).toBe(true);
    expect(isTorchLeaf(index, "m0")).toBe(false);
    expect(maxDepth(index)).toBe(2);
    const s = openModules(index, stateAtDepth(index, 1, ALL));
    expect(s.open.has(lin)).toBe(false);
    expect(s.open.has("m0")).toBe(true);
    expect(expandAll(index, s).open.has(lin)).toBe(true);
  });

  it("reveal opens every ancestor and unfolds the run around a node", () => {
    const index = readDocument(stackedBlocks(4));
    const s = reveal(index, stateAtDepth(index, 1, ALL), "n8"); // linear op of block 2 (h.2.fc)
    const v = computeVisibleGraph(index, s);
    expect(v.nodeOwner.get("n8")).toBe("n8");
    expect(v.containers.has("m6")).toBe(true);
    expect(v.items.get("m1")).toMatchObject({ type: "box", repeat: 1 });
  });

  it("keeps every document node in exactly one place in the fully open BERT graph", () => {
    const index = readDocument(fixture("bert"));
    const v = computeVisibleGraph(index, expandAll(index, stateAtDepth(index, 1, ALL)));
    expect([...v.items.values()].filter((i) => i.type === "node")).toHaveLength(index.doc.nodes.length);
    expect(v.edges.reduce((n, e) => n + e.edges.length, 0)).toBe(index.doc.edges.length);
  });
});

describe("search", () => {
  it("finds ops by name, modules by path and by class, exact matches first", () => {
    const index = readDocument(fixture("mlp"));
    // Ops first where they match as well as a module does: Enter on "linear" picks the op.
    expect(search(index, "relu").map((h) => h.id)).toEqual(["n4", "m2"]);
    expect(search(index, "fc2").map((h) => h.id)[0]).toBe("m3");
    expect(search(index, "LINEAR").map((h) => h.id)).toEqual(["n3", "n7", "m1", "m3"]);
    expect(search(index, "  ")).toEqual([]);
    expect(search(index, "no-such-thing")).toEqual([]);
  });
});

describe("search by shape", () => {
  it("finds tensors by their shape, with × or x and * for any sizes", () => {
    const index = readDocument(fixture("mlp"));
    // x is 2×16; fc1's weight 32×16; fc1/act outputs 2×32; fc2's output 2×4.
    const ids = (q: string): string[] => search(index, q).map((h) => h.id);
    expect(ids("2×32")).toEqual(["n3", "n4"]);
    expect(ids("2x32")).toEqual(["n3", "n4"]);
    expect(ids("2 X 32")).toEqual(["n3", "n4"]);
    expect(ids("*×16")).toEqual(["n0", "n1"]);
    expect(ids("*")).toEqual([]);
    expect(ids("2×*")).toEqual(["n0", "n3", "n4", "n7"]);
    expect(ids("9×9")).toEqual([]);
    const hit = search(index, "2x32")[0]!;
    expect(hit.type).toBe("tensor");
    expect(hit.title).toContain("2×32");
    expect(hit.detail).toContain("fc1");
  });

  it("tells apart hits with the same name by module path and source line", () => {
    const index = readDocument(fixture("bert"));
    const hits = search(index, "layer_norm").filter((h) => h.type === "node");
    expect(hits.length).toBeGreaterThan(1);
    expect(new Set(hits.map((h) => h.detail)).size).toBe(hits.length);
    for (const h of hits) expect(h.detail).toMatch(/\.py:\d+/);
  });
});

describe("format", () => {
  it("writes shapes and counts compactly", () => {
    expect(formatShape([1, 16, 64])).toBe("1×16×64");
    expect(formatShape([])).toBe("scalar");
    expect(formatCount(999)).toBe("999");
    expect(formatCount(1329280)).toBe("1.33M");
    expect(formatCount(49984)).toBe("50.0K");
  });
});

describe("groups of inputs and outputs", () => {
  it("draws many outputs under one name as one closed box, and plain names as nodes", () => {
    const index = readDocument(withCacheOutputs(3));
    const group = index.groups.get("g:output:cache");
    expect(group?.nodes.length).toBe(6);
    expect(index.modules.get("g:output:cache")?.parent).toBe("m0");
    const visible = computeVisibleGraph(index, stateAtDepth(index, 1, ALL));
    const box = visible.items.get("g:output:cache");
    expect(box?.type).toBe("box");
    expect(box?.type === "box" ? box.group?.name : undefined).toBe("cache");
    // "out" is a plain name: still its own node. The six cache outputs are hidden in the box.
    expect([...visible.items.values()].filter((i) => i.type === "node" && i.node.kind === "output").map((i) => i.id)).toEqual(["n10"]);
    for (const id of group?.nodes ?? []) expect(visible.nodeOwner.get(id)).toBe("g:output:cache");
    // The folded run of blocks feeds the group through one merged edge.
    expect(visible.edges.filter((e) => e.target === "g:output:cache").map((e) => [e.source, e.edges.length])).toEqual([["m1", 6]]);
  });

  it("opens like a module: toggle, reveal from a search hit, and Expand all show the members", () => {
    const index = readDocument(withCacheOutputs(3));
    const first = stateAtDepth(index, 1, ALL);
    const opened = toggle(index, first, "g:output:cache");
    const visible = computeVisibleGraph(index, opened);
    expect(visible.containers.get("g:output:cache")?.group?.nodes.length).toBe(6);
    expect(visible.nodeOwner.get("n11")).toBe("n11");
    const hit = search(index, "cache.layers[2].values")[0];
    expect(hit?.id).toBe("n16");
    expect(computeVisibleGraph(index, reveal(index, first, "n16")).nodeOwner.get("n16")).toBe("n16");
    expect(computeVisibleGraph(index, expandAll(index, first)).nodeOwner.get("n11")).toBe("n11");
    expect(computeVisibleGraph(index, collapseAll(index, opened)).nodeOwner.get("n11")).toBe("g:output:cache");
  });

  it("stays one box under Open modules and any depth: it is no level of the model", () => {
    // Opened by Open modules, a 32-layer Llama's 64 cache outputs stood in one row at the bottom,
    // the root six times as wide as its layers.
    const index = readDocument(withCacheOutputs(3));
    const first = stateAtDepth(index, 1, ALL);
    for (const state of [openModules(index, first), stateAtDepth(index, 9, ALL)]) {
      expect(state.open.has("g:output:cache")).toBe(false);
      expect(computeVisibleGraph(index, state).nodeOwner.get("n11")).toBe("g:output:cache");
    }
    expect(maxDepth(index)).toBe(maxDepth(readDocument(stackedBlocks(3))));
  });

  it("groups inputs the same way, and their edges leave from the group box", () => {
    const doc = stackedBlocks(1);
    const T = { shape: [2, 4], dtype: "float32", device: "cpu" };
    const extra = ["n90", "n91", "n92", "n93", "n94"];
    extra.forEach((id, i) => {
      doc.nodes.unshift({ id, kind: "input", name: `xs[${i}]`, label: `xs[${i}]`, module: "m0", outputs: [T] });
      doc.edges.push({ source: id, source_output: 0, target: "n2", target_input: 2 + i, tensor: T });
    });
    const index = readDocument(doc);
    expect(index.groups.get("g:input:xs")?.nodes).toEqual(["n94", "n93", "n92", "n91", "n90"]);
    // Placed by its first member: before the blocks, like the inputs it holds.
    const visible = computeVisibleGraph(index, stateAtDepth(index, 1, ALL));
    expect(visible.containers.get("m0")?.members[0]).toBe("g:input:xs");
    expect(visible.edges.filter((e) => e.source === "g:input:xs").map((e) => [e.target, e.edges.length])).toEqual([["m1", 5]]);
  });

  it("leaves fewer than LEAF_GROUP_MIN leaves under one name as nodes", () => {
    const doc = withCacheOutputs(2); // 4 cache outputs
    const index = readDocument(doc);
    expect(index.groups.size).toBe(0);
    expect(index.doc).toBe(doc);
  });
});
