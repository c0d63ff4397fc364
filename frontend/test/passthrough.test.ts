import { describe, expect, it } from "vitest";
import type { GraphDocument } from "../src/model/document";
import { readDocument } from "../src/model/document";
import { stateAtDepth, toggle } from "../src/model/state";
import { computeVisibleGraph } from "../src/model/visible";

const T = (shape: number[]) => ({ shape, dtype: "float32", device: "cpu" });
const ALL = { showParameters: true, showConstants: true };

/** `head(skip(x))` where `skip` is an nn.Identity: no op of its own, it returns its input. */
function withIdentity(): GraphDocument {
  return {
    schema_version: "1.1",
    producer: { name: "vista-core", version: "0", torch: "0", python: "0" },
    modules: [
      { id: "m0", parent: null, path: "", name: "", class_name: "Net", class_qualname: "t.Net", call_index: 0, num_params: 20, num_params_own: 0, signature: "root" },
      { id: "m1", parent: "m0", path: "skip", name: "skip", class_name: "Identity", class_qualname: "t.Identity", call_index: 0, num_params: 0, num_params_own: 0, signature: "id",
        inputs: [{ name: "input", source: "n0", source_output: 0, tensor: T([1, 4]) }],
        outputs: [{ name: "output", source: "n0", source_output: 0, tensor: T([1, 4]) }] },
      { id: "m2", parent: "m0", path: "head", name: "head", class_name: "Linear", class_qualname: "t.Linear", call_index: 0, num_params: 20, num_params_own: 20, signature: "lin" },
    ],
    nodes: [
      { id: "n0", kind: "input", name: "x", label: "x", module: "m0", outputs: [T([1, 4])] },
      { id: "n1", kind: "op", name: "torch.nn.functional.linear", label: "linear", module: "m2", outputs: [T([1, 4])] },
      { id: "n2", kind: "output", name: "output", label: "output", module: "m0" },
    ],
    edges: [
      { source: "n0", source_output: 0, target: "n1", target_input: 0, tensor: T([1, 4]) },
      { source: "n1", source_output: 0, target: "n2", target_input: 0, tensor: T([1, 4]) },
    ],
  };
}

describe("a module call that only passes its input on", () => {
  it("is drawn on the path of the tensor it returns, not as a box beside it", () => {
    const index = readDocument(withIdentity());
    const view = computeVisibleGraph(index, stateAtDepth(index, 1, ALL));
    expect(view.items.get("m1")?.type).toBe("box");
    expect(view.edges.map((e) => e.id).sort()).toEqual(["m1>m2", "m2>n2", "n0>m1"]);
    expect(view.edges.find((e) => e.id === "n0>m1")?.tensors).toEqual([T([1, 4])]);
  });

  it("passes nothing on once its parent is closed, and a module with ops is left as it is", () => {
    const index = readDocument(withIdentity());
    const closed = computeVisibleGraph(index, toggle(index, stateAtDepth(index, 1, ALL), "m0"));
    expect(closed.edges).toEqual([]);
    const doc = withIdentity();
    doc.nodes.splice(1, 0, { id: "n9", kind: "op", name: "torch.relu", label: "relu", module: "m1", outputs: [T([1, 4])] });
    const view = computeVisibleGraph(readDocument(doc), stateAtDepth(readDocument(doc), 1, ALL));
    expect(view.edges.some((e) => e.id === "n0>m2")).toBe(true);
  });
});
