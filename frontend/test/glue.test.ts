import { describe, expect, it } from "vitest";
import type { GraphDocument } from "../src/model/document";
import { readDocument, readForView } from "../src/model/document";
import { reveal, stateAtDepth, unfold } from "../src/model/state";
import { computeVisibleGraph } from "../src/model/visible";

const T = (shape: number[]) => ({ shape, dtype: "float32", device: "cpu" });
const ALL = { showParameters: true, showConstants: true };

/** `for step in steps: h = h + sigmoid(step(h))` with three steps, as vista-core writes it. */
function gatedSteps(): GraphDocument {
  const modules: GraphDocument["modules"] = [
    { id: "m0", parent: null, path: "", name: "", class_name: "Steps", class_qualname: "t.Steps", call_index: 0, num_params: 60, num_params_own: 0, signature: "root" },
  ];
  const nodes: GraphDocument["nodes"] = [{ id: "n0", kind: "input", name: "x", label: "x", module: "m0", outputs: [T([1, 4])] }];
  const edges: GraphDocument["edges"] = [];
  const glue: string[] = [];
  let h = "n0";
  let n = 1;
  for (let i = 0; i < 3; i++) {
    const m = `m${i + 1}`;
    modules.push({ id: m, parent: "m0", path: `steps.${i}`, name: String(i), class_name: "Linear", class_qualname: "t.Linear", call_index: 0, num_params: 20, num_params_own: 20, signature: "lin" });
    const [lin, sig, add] = [`n${n++}`, `n${n++}`, `n${n++}`];
    nodes.push({ id: lin, kind: "op", name: "torch.nn.functional.linear", label: "linear", module: m, outputs: [T([1, 4])] });
    nodes.push({ id: sig, kind: "op", name: "torch.sigmoid", label: "sigmoid", module: "m0", outputs: [T([1, 4])] });
    nodes.push({ id: add, kind: "op", name: "torch.Tensor.__add__", label: "add", module: "m0", outputs: [T([1, 4])] });
    edges.push({ source: h, source_output: 0, target: lin, target_input: 0, tensor: T([1, 4]) });
    edges.push({ source: lin, source_output: 0, target: sig, target_input: 0, tensor: T([1, 4]) });
    edges.push({ source: h, source_output: 0, target: add, target_input: 0, tensor: T([1, 4]) });
    edges.push({ source: sig, source_output: 0, target: add, target_input: 1, tensor: T([1, 4]) });
    if (i < 2) glue.push(sig, add);
    h = add;
  }
  nodes.push({ id: `n${n}`, kind: "output", name: "output", label: "output", module: "m0" });
  edges.push({ source: h, source_output: 0, target: `n${n}`, target_input: 0, tensor: T([1, 4]) });
  return {
    schema_version: "1.0",
    producer: { name: "vista-core", version: "0", torch: "0", python: "0" },
    modules,
    nodes,
    edges,
    repeated_blocks: [{ parent: "m0", modules: ["m1", "m2", "m3"], signature: "lin", glue }],
  };
}

describe("glue of repeated runs", () => {
  it("is drawn inside the folded box, so the run reads as one step with no loop back into it", () => {
    const index = readDocument(gatedSteps());
    expect([...index.glueOf.keys()]).toEqual(["n2", "n3", "n5", "n6"]);
    expect([...readForView(gatedSteps()).index.glueOf.keys()]).toEqual(["n2", "n3", "n5", "n6"]);
    const folded = computeVisibleGraph(index, stateAtDepth(index, 1, ALL));
    const drawn = [...folded.items.values()].map((i) => (i.type === "node" ? i.node.label : `box×${i.repeat}`));
    expect(drawn).toEqual(["x", "sigmoid", "add", "output", "box×3"]);
    expect(folded.nodeOwner.get("n5")).toBe("m1");
    expect(folded.edges.map((e) => e.id).sort()).toEqual(["m1>n8", "m1>n9", "n0>m1", "n8>n9", "n9>n10"].sort());
  });

  it("comes back between the calls when the run is unfolded, and reveal unfolds it", () => {
    const index = readDocument(gatedSteps());
    const state = stateAtDepth(index, 1, ALL);
    const unfolded = computeVisibleGraph(index, unfold(index, state, "m1"));
    expect(unfolded.nodeOwner.get("n2")).toBe("n2");
    expect(unfolded.edges.some((e) => e.id === "m1>n2")).toBe(true);
    const revealed = reveal(index, state, "n5");
    expect(revealed.unfolded.has("m1")).toBe(true);
    expect(computeVisibleGraph(index, revealed).nodeOwner.get("n5")).toBe("n5");
  });

  it("ignores glue that is not the parent's own node", () => {
    const doc = gatedSteps();
    doc.repeated_blocks = [{ parent: "m0", modules: ["m1", "m2", "m3"], signature: "lin", glue: ["n1", "n2"] }];
    for (const index of [readDocument(doc), readForView(doc).index]) expect([...index.glueOf.keys()]).toEqual(["n2"]);
  });

  it("folds glue modules (a norm after each block) into the box, and reveal unfolds it", () => {
    // layers.0..2, each followed by a call of one shared norm: m1 n1 m2 n2 m3 n3 ... .
    const modules: GraphDocument["modules"] = [
      { id: "m0", parent: null, path: "", name: "", class_name: "Net", class_qualname: "t.Net", call_index: 0, num_params: 68, num_params_own: 0, signature: "root" },
    ];
    const nodes: GraphDocument["nodes"] = [{ id: "n0", kind: "input", name: "x", label: "x", module: "m0", outputs: [T([1, 4])] }];
    const edges: GraphDocument["edges"] = [];
    let h = "n0";
    for (let i = 0; i < 3; i++) {
      const [layer, norm] = [`m${2 * i + 1}`, `m${2 * i + 2}`];
      modules.push({ id: layer, parent: "m0", path: `layers.${i}`, name: String(i), class_name: "Linear", class_qualname: "t.Linear", call_index: 0, num_params: 20, num_params_own: 20, signature: "lin" });
      modules.push({ id: norm, parent: "m0", path: "norm", name: "norm", class_name: "LayerNorm", class_qualname: "t.LayerNorm", call_index: i, num_params: 8, num_params_own: 8, signature: "ln" });
      const [lin, ln] = [`n${2 * i + 1}`, `n${2 * i + 2}`];
      nodes.push({ id: lin, kind: "op", name: "torch.nn.functional.linear", label: "linear", module: layer, outputs: [T([1, 4])] });
      nodes.push({ id: ln, kind: "op", name: "torch.nn.functional.layer_norm", label: "layer_norm", module: norm, outputs: [T([1, 4])] });
      edges.push({ source: h, source_output: 0, target: lin, target_input: 0, tensor: T([1, 4]) });
      edges.push({ source: lin, source_output: 0, target: ln, target_input: 0, tensor: T([1, 4]) });
      h = ln;
    }
    nodes.push({ id: "n7", kind: "output", name: "output", label: "output", module: "m0" });
    edges.push({ source: h, source_output: 0, target: "n7", target_input: 0, tensor: T([1, 4]) });
    const doc: GraphDocument = {
      schema_version: "1.1",
      producer: { name: "vista-core", version: "0", torch: "0", python: "0" },
      modules,
      nodes,
      edges,
      repeated_blocks: [{ parent: "m0", modules: ["m1", "m3", "m5"], signature: "lin", glue_modules: ["m2", "m4", "m6"] }],
    };
    const index = readDocument(doc);
    const state = stateAtDepth(index, 1, ALL);
    const folded = computeVisibleGraph(index, state);
    const drawn = [...folded.items.values()].map((i) => (i.type === "node" ? i.node.label : `${i.id}×${i.repeat}`));
    expect(drawn).toEqual(["x", "output", "m1×3"]);
    // The box holds all the model's parameters: three layers and the one norm, counted once.
    const box = folded.items.get("m1");
    expect(box?.type === "box" ? box.numParams : null).toBe(68);
    expect(folded.moduleOwner.get("m4")).toBe("m1");
    expect(folded.edges.map((e) => e.id).sort()).toEqual(["m1>n7", "n0>m1"]);
    const unfolded = computeVisibleGraph(index, unfold(index, state, "m1"));
    expect(unfolded.moduleOwner.get("m4")).toBe("m4");
    const revealed = reveal(index, state, "n4");
    expect(revealed.unfolded.has("m1")).toBe(true);
    expect(computeVisibleGraph(index, revealed).nodeOwner.get("n4")).toBe("n4");
  });
});
