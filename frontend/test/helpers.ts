import { instance } from "@viz-js/viz";
/** Test helpers: fixture loading and a small builder for synthetic graph documents. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { LayoutEngine } from "../src/layout/engine";
import { buildLayoutGraph } from "../src/layout/request";
import type { LayoutResult } from "../src/layout/types";
import type { GraphDocument, GraphIndex } from "../src/model/document";
import { formatShapes } from "../src/model/format";
import type { ViewState } from "../src/model/state";
import { computeVisibleGraph } from "../src/model/visible";

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Documents written by vista-core: the known-model snapshots mlp, fails_in_cat and hf_bert of
 * tests-integration, copied by `npm run gen:fixtures` (the drift check keeps them equal).
 */
export function fixture(name: "mlp" | "failing" | "bert"): GraphDocument {
  return JSON.parse(readFileSync(path.join(here, "fixtures", `${name}.json`), "utf8")) as GraphDocument;
}

const T = (shape: number[]) => ({ shape, dtype: "float32", device: "cpu" });

/**
 * A model with `blocks` identical sibling blocks run in sequence, each holding a Linear
 * (weight parameter + linear op) and a residual add, folded as one repeated run:
 *
 *   x -> [block_i: linear(weight) -> add(+input)] x blocks -> out
 */
export function stackedBlocks(blocks: number): GraphDocument {
  const modules: GraphDocument["modules"] = [
    { id: "m0", parent: null, path: "", name: "", class_name: "Stack", class_qualname: "t.Stack", call_index: 0, num_params: 16 * blocks, num_params_own: 0, signature: "root" },
  ];
  const nodes: GraphDocument["nodes"] = [{ id: "n0", kind: "input", name: "x", label: "x", module: "m0", outputs: [T([2, 4])] }];
  const edges: GraphDocument["edges"] = [];
  let prev = "n0";
  let n = 1;
  let m = 1;
  const blockIds: string[] = [];
  for (let b = 0; b < blocks; b++) {
    const block = `m${m++}`;
    const lin = `m${m++}`;
    blockIds.push(block);
    modules.push({ id: block, parent: "m0", path: `h.${b}`, name: String(b), class_name: "Block", class_qualname: "t.Block", call_index: 0, num_params: 16, num_params_own: 0, signature: "block" });
    modules.push({ id: lin, parent: block, path: `h.${b}.fc`, name: "fc", class_name: "Linear", class_qualname: "t.Linear", call_index: 0, num_params: 16, num_params_own: 16, signature: "linear", parameters: [{ name: "weight", kind: "parameter", shape: [4, 4], dtype: "float32", numel: 16 }] });
    const w = `n${n++}`;
    const op = `n${n++}`;
    const add = `n${n++}`;
    nodes.push({ id: w, kind: "parameter", name: `h.${b}.fc.weight`, label: "weight", module: lin, outputs: [T([4, 4])] });
    nodes.push({ id: op, kind: "op", name: "torch.nn.functional.linear", label: "linear", module: lin, outputs: [T([2, 4])] });
    nodes.push({ id: add, kind: "op", name: "torch.Tensor.__add__", label: "add", module: block, outputs: [T([2, 4])] });
    edges.push({ source: prev, source_output: 0, target: op, target_input: 0, tensor: T([2, 4]) });
    edges.push({ source: w, source_output: 0, target: op, target_input: 1, tensor: T([4, 4]) });
    edges.push({ source: op, source_output: 0, target: add, target_input: 0, tensor: T([2, 4]) });
    edges.push({ source: prev, source_output: 0, target: add, target_input: 1, tensor: T([2, 4]) });
    prev = add;
  }
  const out = `n${n++}`;
  nodes.push({ id: out, kind: "output", name: "out", label: "out", module: "m0" });
  edges.push({ source: prev, source_output: 0, target: out, target_input: 0, tensor: T([2, 4]) });
  return {
    schema_version: "1.0",
    producer: { name: "test", version: "0", torch: "0", python: "3" },
    modules: modules as GraphDocument["modules"],
    nodes,
    edges,
    // A run is two calls or more (the schema's minItems).
    ...(blocks < 2 ? {} : { repeated_blocks: [{ parent: "m0", modules: blockIds as [string, string, ...string[]], signature: "block" }] }),
  };
}

/**
 * `stackedBlocks(blocks)` whose model also returns a key and a value tensor per block, like a
 * transformer's cache: outputs `cache.layers[i].keys` and `cache.layers[i].values` (made by
 * each block's add), next to the plain `out`.
 */
export function withCacheOutputs(blocks: number): GraphDocument {
  const doc = stackedBlocks(blocks);
  const adds = doc.nodes.filter((n) => n.label === "add");
  let n = doc.nodes.length;
  adds.forEach((add, i) => {
    for (const part of ["keys", "values"]) {
      const id = `n${n++}`;
      doc.nodes.push({ id, kind: "output", name: `cache.layers[${i}].${part}`, label: part, module: "m0" });
      doc.edges.push({ source: add.id, source_output: 0, target: id, target_input: 0, tensor: T([2, 4]) });
    }
  });
  return doc;
}

/**
 * A Llama-like model: `model` (m1) holds a rotary-embedding op whose output every one of its
 * `blocks` layers reads, the layers in sequence, and a key/value cache tensor made by each
 * layer that the outer model returns (so each leaves `model` through its border):
 *
 *   x -> model[ rope; layer_0 .. layer_{n-1} (each reads rope and the previous layer) ] -> out
 *                      every layer -> cache.layers[i].keys (an output of the model)
 *
 * With `rotary`, the rope op (cos) and a second one (sin, which every layer reads too) sit side
 * by side in a module of their own, `model.rotary`, as in Hugging Face's Llama.
 */
export function ropeStack(blocks: number, rotary = false): GraphDocument {
  const modules: GraphDocument["modules"] = [
    { id: "m0", parent: null, path: "", name: "", class_name: "Llama", class_qualname: "t.Llama", call_index: 0, num_params: 0, num_params_own: 0, signature: "root" },
    { id: "m1", parent: "m0", path: "model", name: "model", class_name: "Model", class_qualname: "t.Model", call_index: 0, num_params: 0, num_params_own: 0, signature: "model" },
  ];
  const nodes: GraphDocument["nodes"] = [
    { id: "n0", kind: "input", name: "x", label: "x", module: "m0", outputs: [T([2, 4])] },
    { id: "n1", kind: "op", name: "torch.cos", label: "rope", module: "m1", outputs: [T([2, 4])] },
  ];
  const edges: GraphDocument["edges"] = [{ source: "n0", source_output: 0, target: "n1", target_input: 0, tensor: T([2, 4]) }];
  const layerIds: string[] = [];
  let prev = "n0";
  let n = 2;
  const rotaryModule = `m${blocks + 2}`;
  const sin = "n99999";
  if (rotary) {
    modules.push({ id: rotaryModule, parent: "m1", path: "model.rotary", name: "rotary", class_name: "Rotary", class_qualname: "t.Rotary", call_index: 0, num_params: 0, num_params_own: 0, signature: "rotary" });
    (nodes[1] as { module: string }).module = rotaryModule;
    nodes.push({ id: sin, kind: "op", name: "torch.sin", label: "sin", module: rotaryModule, outputs: [T([2, 4])] });
    edges.push({ source: "n0", source_output: 0, target: sin, target_input: 0, tensor: T([2, 4]) });
  }
  for (let b = 0; b < blocks; b++) {
    const layer = `m${b + 2}`;
    layerIds.push(layer);
    modules.push({ id: layer, parent: "m1", path: `model.layers.${b}`, name: String(b), class_name: "Layer", class_qualname: "t.Layer", call_index: 0, num_params: 0, num_params_own: 0, signature: "layer" });
    const mix = `n${n++}`;
    const kv = `n${n++}`;
    nodes.push({ id: mix, kind: "op", name: "torch.mul", label: "mul", module: layer, outputs: [T([2, 4])] });
    nodes.push({ id: kv, kind: "op", name: "torch.Tensor.clone", label: "clone", module: layer, outputs: [T([2, 4])] });
    edges.push({ source: prev, source_output: 0, target: mix, target_input: 0, tensor: T([2, 4]) });
    edges.push({ source: "n1", source_output: 0, target: mix, target_input: 1, tensor: T([2, 4]) });
    if (rotary) edges.push({ source: sin, source_output: 0, target: mix, target_input: 2, tensor: T([2, 4]) });
    edges.push({ source: mix, source_output: 0, target: kv, target_input: 0, tensor: T([2, 4]) });
    prev = mix;
  }
  const kvs = nodes.filter((x) => x.label === "clone");
  const out = `n${n++}`;
  nodes.push({ id: out, kind: "output", name: "out", label: "out", module: "m0" });
  edges.push({ source: prev, source_output: 0, target: out, target_input: 0, tensor: T([2, 4]) });
  kvs.forEach((kv, i) => {
    const id = `n${n++}`;
    nodes.push({ id, kind: "output", name: `cache.layers[${i}].keys`, label: "keys", module: "m0" });
    edges.push({ source: kv.id, source_output: 0, target: id, target_input: 0, tensor: T([2, 4]) });
  });
  return {
    schema_version: "1.0",
    producer: { name: "test", version: "0", torch: "0", python: "3" },
    modules,
    nodes,
    edges,
    repeated_blocks: [{ parent: "m1", modules: layerIds as [string, string, ...string[]], signature: "layer" }],
  };
}

/**
 * `depth` module calls each inside the one before (`m1` in `m0`, `m2` in `m1`, …), the input
 * read by one op in the innermost call, whose output is the model's output. Paths are the
 * calls' own names, as a document that does not repeat the full path at every level has them.
 */
export function deepNesting(depth: number): GraphDocument {
  const modules: GraphDocument["modules"] = [
    { id: "m0", parent: null, path: "", name: "", class_name: "Nest", class_qualname: "t.Nest", call_index: 0, num_params: 0, num_params_own: 0, signature: "s0" },
  ];
  for (let d = 1; d <= depth; d++) {
    modules.push({ id: `m${d}`, parent: `m${d - 1}`, path: "inner", name: "inner", class_name: "Nest", class_qualname: "t.Nest", call_index: 0, num_params: 0, num_params_own: 0, signature: `s${d}` });
  }
  return {
    schema_version: "1.0",
    producer: { name: "test", version: "0", torch: "0", python: "3" },
    modules,
    nodes: [
      { id: "n0", kind: "input", name: "x", label: "x", module: "m0", outputs: [T([2, 4])] },
      { id: "n1", kind: "op", name: "torch.relu", label: "relu", module: `m${depth}`, outputs: [T([2, 4])] },
      { id: "n2", kind: "output", name: "out", label: "out", module: "m0" },
    ],
    edges: [
      { source: "n0", source_output: 0, target: "n1", target_input: 0, tensor: T([2, 4]) },
      { source: "n1", source_output: 0, target: "n2", target_input: 0, tensor: T([2, 4]) },
    ],
  };
}

/** `ops` ops in one chain (each reads the one before) inside one module call under the root. */
export function longChain(ops: number): GraphDocument {
  const nodes: GraphDocument["nodes"] = [{ id: "n0", kind: "input", name: "x", label: "x", module: "m0", outputs: [T([2, 4])] }];
  const edges: GraphDocument["edges"] = [];
  for (let i = 1; i <= ops; i++) {
    nodes.push({ id: `n${i}`, kind: "op", name: "torch.tanh", label: "tanh", module: "m1", outputs: [T([2, 4])] });
    edges.push({ source: `n${i - 1}`, source_output: 0, target: `n${i}`, target_input: 0, tensor: T([2, 4]) });
  }
  nodes.push({ id: `n${ops + 1}`, kind: "output", name: "out", label: "out", module: "m0" });
  edges.push({ source: `n${ops}`, source_output: 0, target: `n${ops + 1}`, target_input: 0, tensor: T([2, 4]) });
  return {
    schema_version: "1.0",
    producer: { name: "test", version: "0", torch: "0", python: "3" },
    modules: [
      { id: "m0", parent: null, path: "", name: "", class_name: "Chain", class_qualname: "t.Chain", call_index: 0, num_params: 0, num_params_own: 0, signature: "root" },
      { id: "m1", parent: "m0", path: "body", name: "body", class_name: "Body", class_qualname: "t.Body", call_index: 0, num_params: 0, num_params_own: 0, signature: "body" },
    ],
    nodes,
    edges,
  };
}

/**
 * A hand-made diff document (contract: diff.md) of `stackedBlocks(2)` (a) against
 * `stackedBlocks(3)` (b): block 2 (m5, its Linear m6, nodes n7-n9 and their edges) added, the
 * edge from block 1's add to the output removed, and block 0's linear (n2) changed in shape.
 * The union is b's graph plus the removed edge.
 */
export function stackDiff(): Record<string, unknown> {
  const a = stackedBlocks(2);
  const b = stackedBlocks(3);
  const union = stackedBlocks(3);
  union.edges.push({ source: "n6", source_output: 0, target: "n10", target_input: 0, tensor: T([2, 4]) });
  const same = (ids: string[]): [string, string, string][] => ids.map((id) => [id, id, id]);
  const added = (element: string, id: string) => ({ element, id, a: null, b: id, status: "added", fields: [] });
  return {
    diff_version: "1.0",
    a,
    b,
    union,
    equal: false,
    changes: [
      { element: "node", id: "n2", a: "n2", b: "n2", status: "changed", fields: [{ field: "outputs[0].shape", a: [2, 4], b: [2, 8] }] },
      added("module", "m5"),
      added("module", "m6"),
      added("node", "n7"),
      added("node", "n8"),
      added("edge", "n6:0->n8:0"),
      added("edge", "n7:0->n8:1"),
      added("node", "n9"),
      added("edge", "n8:0->n9:0"),
      added("edge", "n6:0->n9:1"),
      added("edge", "n9:0->n10:0"),
      { element: "edge", id: "n6:0->n10:0", a: "n6:0->n7:0", b: null, status: "removed", fields: [] },
    ],
    matches: {
      modules: same(["m0", "m1", "m2", "m3", "m4"]),
      nodes: [...same(["n0", "n1", "n2", "n3", "n4", "n5", "n6"]), ["n7", "n10", "n10"]],
    },
  };
}

/** Graphviz in WebAssembly, rendering a dot string to the json0 the layout engine reads. */
export async function graphvizRender(): Promise<(dot: string) => string> {
  const viz = await instance();
  return (dot) => {
    const r = viz.render(dot, { format: "json0", yInvert: true });
    if (r.status !== "success") throw new Error(r.errors.map((e) => e.message).join("; "));
    return r.output;
  };
}

/**
 * The engine's layout of `state`, with item and header sizes made up from ids (no text
 * measuring); `grow` widens the items with an id of odd length, as text measured again does.
 */
export function layWithFixedSizes(index: GraphIndex, state: ViewState, engine: LayoutEngine, grow = 0): LayoutResult {
  const v = computeVisibleGraph(index, state);
  const width = (id: string): number => 60 + id.length * 3 + (id.length % 2 === 1 ? grow : 0);
  const graph = buildLayoutGraph(
    v,
    { item: (id) => ({ width: width(id), height: v.items.get(id)?.type === "box" ? 54 : 26 }), header: () => ({ height: 40, minWidth: 120, control: 40 }) },
    (e) => formatShapes(e.tensors),
  );
  return engine.layout(graph);
}
