/**
 * Transitions: the ops where a tensor changes dtype (fp32→bf16), moves between devices, or is
 * copied into a new memory layout (contiguous, a reshape of a transposed tensor), derived from
 * the document's shapes, dtypes and devices alone. No DOM here.
 */
import type { Edge, GraphIndex, Node } from "./document";

export type TransitionKind = "cast" | "device" | "copy";

export interface Transition {
  readonly node: string;
  readonly kind: TransitionKind;
  /** "fp32→bf16", "cpu→cuda:0", "contiguous". */
  readonly text: string;
}

export const TRANSITION_NOUNS: Readonly<Record<TransitionKind, [string, string]>> = {
  cast: ["dtype cast", "dtype casts"],
  device: ["device copy", "device copies"],
  copy: ["layout copy", "layout copies"],
};

const SHORT: Readonly<Record<string, string>> = {
  float32: "fp32",
  float16: "fp16",
  bfloat16: "bf16",
  float64: "fp64",
  float8_e4m3fn: "fp8e4m3",
  float8_e5m2: "fp8e5m2",
  int64: "i64",
  int32: "i32",
  int16: "i16",
  int8: "i8",
  uint8: "u8",
  bool: "bool",
  complex64: "c64",
  complex128: "c128",
};

function short(dtype: string): string {
  return SHORT[dtype] ?? dtype;
}

function floating(dtype: string): boolean {
  return /^(float|bfloat)/.test(dtype);
}

/** The last part of an op's qualified name: `torch.Tensor.to` → `to`. */
function leaf(name: string): string {
  return name.slice(name.lastIndexOf(".") + 1);
}

/** Conversions by name, which also cast between kinds of dtype (float → int, → bool). */
const CONVERSIONS = new Set(["to", "type", "type_as", "float", "half", "bfloat16", "double", "int", "long", "short", "bool", "byte", "char", "_to_copy"]);
/** Ops whose result is usually not contiguous, so a reshape of it copies. */
const NON_CONTIGUOUS = new Set(["transpose", "permute", "t", "swapaxes", "swapdims", "mT", "T", "expand", "movedim"]);
const RESHAPES = new Set(["reshape", "flatten"]);

/** The transitions of the document, by op node id. */
export function findTransitions(index: GraphIndex): Map<string, Transition> {
  const into = new Map<string, Edge[]>();
  for (const e of index.edges) {
    const list = into.get(e.target);
    if (list === undefined) into.set(e.target, [e]);
    else list.push(e);
  }
  const found = new Map<string, Transition>();
  for (const n of index.doc.nodes) {
    if (n.kind !== "op") continue;
    const t = transitionOf(index, n, (into.get(n.id) ?? []).sort((a, b) => a.target_input - b.target_input));
    if (t !== null) found.set(n.id, t);
  }
  return found;
}

function transitionOf(index: GraphIndex, node: Node, inputs: readonly Edge[]): Transition | null {
  const out = node.outputs?.[0];
  const first = inputs[0]?.tensor;
  if (out === undefined || first === undefined) return null;
  const name = leaf(node.name);
  if (out.device !== first.device) return { node: node.id, kind: "device", text: `${first.device}→${out.device}` };
  if (out.dtype !== first.dtype && (CONVERSIONS.has(name) || (floating(out.dtype) && floating(first.dtype)))) {
    return { node: node.id, kind: "cast", text: `${short(first.dtype)}→${short(out.dtype)}` };
  }
  if (name === "contiguous") return { node: node.id, kind: "copy", text: "contiguous" };
  if (RESHAPES.has(name)) {
    const source = index.nodes.get(inputs[0]?.source ?? "");
    if (source !== undefined && source.kind === "op" && NON_CONTIGUOUS.has(leaf(source.name))) {
      return { node: node.id, kind: "copy", text: `${name} of ${leaf(source.name)}` };
    }
  }
  return null;
}

/** Transitions inside each module call's subtree, counted by kind (for closed boxes). */
export function transitionsByModule(index: GraphIndex, found: ReadonlyMap<string, Transition>): Map<string, Record<TransitionKind, number>> {
  const counts = new Map<string, Record<TransitionKind, number>>();
  for (const t of found.values()) {
    let m: string | null = index.nodes.get(t.node)?.module ?? null;
    while (m !== null) {
      let c = counts.get(m);
      if (c === undefined) {
        c = { cast: 0, device: 0, copy: 0 };
        counts.set(m, c);
      }
      c[t.kind]++;
      m = index.modules.get(m)?.parent ?? null;
    }
  }
  return counts;
}

/** "2 dtype casts, 1 layout copy". */
export function describeCounts(c: Readonly<Record<TransitionKind, number>>): string {
  return (Object.keys(TRANSITION_NOUNS) as TransitionKind[])
    .filter((k) => c[k] > 0)
    .map((k) => `${c[k]} ${TRANSITION_NOUNS[k][c[k] === 1 ? 0 : 1]}`)
    .join(", ");
}
