import { describe, expect, it } from "vitest";
import type { GraphDocument } from "../src/model/document";
import { readDocument, readForView } from "../src/model/document";
import { expandAll, stateAtDepth } from "../src/model/state";
import { computeVisibleGraph } from "../src/model/visible";
import { itemLook } from "../src/view/looks";

const T = (shape: number[]) => ({ shape, dtype: "float32", device: "cpu" });
const ALL = { showParameters: true, showConstants: true };

/** An embedding and an LM head tied to it, as vista-core writes them: a node per call. */
function tied(): GraphDocument {
  const call = (id: string, path: string, cls: string) => ({
    id, parent: "m0", path, name: path, class_name: cls, class_qualname: `t.${cls}`, call_index: 0,
    num_params: 40, num_params_own: 40, signature: cls,
  });
  return {
    schema_version: "1.0",
    producer: { name: "vista-core", version: "0", torch: "0", python: "0" },
    modules: [
      { id: "m0", parent: null, path: "", name: "", class_name: "LM", class_qualname: "t.LM", call_index: 0, num_params: 40, num_params_own: 0, signature: "lm" },
      call("m1", "embed", "Embedding"),
      call("m2", "lm_head", "Linear"),
    ],
    nodes: [
      { id: "n0", kind: "input", name: "ids", label: "ids", module: "m0", outputs: [T([1, 3])] },
      { id: "n1", kind: "parameter", name: "embed.weight", label: "weight", module: "m1", outputs: [T([10, 4])] },
      { id: "n2", kind: "op", name: "torch.nn.functional.embedding", label: "embedding", module: "m1", outputs: [T([1, 3, 4])] },
      { id: "n3", kind: "parameter", name: "lm_head.weight", label: "weight", module: "m2", outputs: [T([10, 4])] },
      { id: "n4", kind: "op", name: "torch.nn.functional.linear", label: "linear", module: "m2", outputs: [T([1, 3, 10])] },
      { id: "n5", kind: "output", name: "logits", label: "logits", module: "m0" },
    ],
    edges: [
      { source: "n0", source_output: 0, target: "n2", target_input: 0, tensor: T([1, 3]) },
      { source: "n1", source_output: 0, target: "n2", target_input: 1, tensor: T([10, 4]) },
      { source: "n2", source_output: 0, target: "n4", target_input: 0, tensor: T([1, 3, 4]) },
      { source: "n3", source_output: 0, target: "n4", target_input: 1, tensor: T([10, 4]) },
      { source: "n4", source_output: 0, target: "n5", target_input: 0, tensor: T([1, 3, 10]) },
    ],
    shared_tensors: [{ name: "embed.weight", kind: "parameter", names: ["embed.weight", "lm_head.weight"], nodes: ["n1", "n3"] }],
  };
}

describe("shared parameters", () => {
  it("indexes each node of a shared tensor, ignoring unknown ids", () => {
    const doc = tied();
    doc.shared_tensors = [{ name: "embed.weight", kind: "parameter", names: ["embed.weight"], nodes: ["n1", "n3", "n99"] }];
    for (const index of [readDocument(doc), readForView(doc).index]) {
      expect([...index.shared.keys()]).toEqual(["n1", "n3"]);
      expect(index.shared.get("n3")?.name).toBe("embed.weight");
    }
  });

  it("marks every node of a tensor read in several calls as shared, with no edge between the calls", () => {
    const index = readDocument(tied());
    const visible = computeVisibleGraph(index, expandAll(index, stateAtDepth(index, 1, ALL)));
    const params = [...visible.items.values()].filter((i) => i.type === "node" && i.node.kind === "parameter");
    expect(params.map((p) => [p.id, p.type === "node" && p.shared])).toEqual([["n1", true], ["n3", true]]);
    expect(visible.edges.filter((e) => e.source === "n1").map((e) => e.target)).toEqual(["n2"]);
    const look = itemLook(params[1]!, () => [], (text) => text.length * 6);
    expect(look.lines.map((l) => l.text)).toEqual(["weight", "10×4 · shared"]);
  });

  it("does not mark a tensor that only one call reads", () => {
    const doc = tied();
    doc.shared_tensors = [{ name: "embed.weight", kind: "parameter", names: ["embed.weight", "x.weight"], nodes: ["n1"] }];
    const index = readDocument(doc);
    const visible = computeVisibleGraph(index, expandAll(index, stateAtDepth(index, 1, ALL)));
    const n1 = visible.items.get("n1");
    expect(n1?.type === "node" && n1.shared).toBe(false);
    expect(itemLook(n1!, () => [], (text) => text.length * 6).lines.map((l) => l.text)).toEqual(["weight", "10×4"]);
  });
});
