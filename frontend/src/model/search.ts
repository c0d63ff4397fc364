/**
 * Search over op names, node labels, module paths and class names, and over tensor shapes
 * (`1×12×128`, `1x12x128`, `*×768`). No DOM.
 */
import type { GraphIndex, ModuleCall, Node, Source } from "./document";
import { formatShape } from "./format";

export interface SearchHit {
  /** A node id (`n12`) or module id (`m3`); for a tensor, the id of the node that produced it. */
  readonly id: string;
  readonly type: "node" | "module" | "tensor";
  /** What to show in the result list. */
  readonly title: string;
  /** Where it is: kind, module path and source line, so that hits of one name can be told apart. */
  readonly detail: string;
}

/** One size of a shape query: a number, or `*` for one or more sizes. */
type Dim = number | "*";

/**
 * The sizes of a shape query, or null when `q` is not one: numbers or `*` joined by `×` or
 * `x` (at least one join, so a plain number is searched as text), optionally in brackets.
 */
export function parseShapeQuery(q: string): Dim[] | null {
  const text = q.trim().replace(/^[[(]\s*|\s*[\])]$/g, "");
  if (!/^(\d+|\*)(\s*[×xX,]\s*(\d+|\*))+$/.test(text)) return null;
  return text.split(/\s*[×xX,]\s*/).map((d) => (d === "*" ? "*" : Number(d)));
}

/** Whether `shape` matches the query sizes, `*` taking one or more sizes. */
export function shapeMatches(dims: readonly Dim[], shape: readonly number[]): boolean {
  const match = (i: number, j: number): boolean => {
    if (i === dims.length) return j === shape.length;
    const d = dims[i];
    if (d === "*") {
      for (let k = j + 1; k <= shape.length; k++) if (match(i + 1, k)) return true;
      return false;
    }
    return j < shape.length && shape[j] === d && match(i + 1, j + 1);
  };
  return match(0, 0);
}

/** Ops rank before modules at equal score (Enter on "linear" picks the op), then other nodes. */
const TYPE_RANK = { op: 0, module: 1, node: 2 } as const;

/**
 * Case-insensitive substring search, or a shape search when the query is a shape. Exact
 * matches rank first, then prefix matches, then the rest; ties rank ops, then modules, then
 * other nodes, each in document order. At most `limit` hits.
 */
export function search(index: GraphIndex, query: string, limit = 200): SearchHit[] {
  const q = query.trim().toLowerCase();
  if (q === "") return [];
  const dims = parseShapeQuery(q);
  if (dims !== null) return searchShapes(index, dims, limit);
  const scored: { hit: SearchHit; score: number; rank: number; order: number }[] = [];
  let order = 0;
  for (const id of index.moduleOrder) {
    const m = index.modules.get(id);
    if (m === undefined) continue;
    const score = best(q, [m.path, m.name, m.class_name, m.class_qualname]);
    if (score > 0) {
      const where = [m.class_name, sourceLine(m.source)].filter((s) => s !== "").join(" · ");
      scored.push({ hit: { id, type: "module", title: m.path === "" ? m.class_name : m.path, detail: where }, score, rank: TYPE_RANK.module, order });
    }
    order++;
  }
  for (const n of index.doc.nodes) {
    const score = best(q, [n.label, n.name]);
    if (score > 0) {
      scored.push({ hit: { id: n.id, type: "node", title: n.name, detail: placeOf(index, n) }, score, rank: n.kind === "op" ? TYPE_RANK.op : TYPE_RANK.node, order });
    }
    order++;
  }
  scored.sort((a, b) => b.score - a.score || a.rank - b.rank || a.order - b.order);
  return scored.slice(0, limit).map((s) => s.hit);
}

/** Every node output of a matching shape, in execution order: one hit per producing node. */
function searchShapes(index: GraphIndex, dims: readonly Dim[], limit: number): SearchHit[] {
  const hits: SearchHit[] = [];
  for (const n of index.doc.nodes) {
    const outputs = n.outputs ?? [];
    const k = outputs.findIndex((t) => shapeMatches(dims, t.shape));
    if (k < 0) continue;
    const t = outputs[k]!;
    const which = outputs.length > 1 ? ` (output #${k})` : "";
    hits.push({ id: n.id, type: "tensor", title: `${formatShape(t.shape)} · ${t.dtype}`, detail: `${n.label}${which}: ${placeOf(index, n)}` });
    if (hits.length >= limit) break;
  }
  return hits;
}

function modulePath(m: ModuleCall | undefined): string {
  return m === undefined ? "" : m.path === "" ? m.class_name : m.path;
}

/** `file.py:12`, the file without its directories. */
function sourceLine(src: Source | undefined): string {
  if (src === undefined) return "";
  const file = src.file.split(/[\\/]/).pop() ?? src.file;
  return `${file}:${src.line}`;
}

/** `op in encoder.layer.0.attention · modeling_bert.py:412`. */
function placeOf(index: GraphIndex, n: Node): string {
  const m = index.modules.get(n.module);
  const call = m !== undefined && m.call_index > 0 ? ` (call #${m.call_index + 1})` : "";
  return [`${n.kind} in ${modulePath(m)}${call}`, sourceLine(n.source)].filter((s) => s !== "").join(" · ");
}

function best(q: string, fields: readonly string[]): number {
  let score = 0;
  for (const f of fields) {
    const v = f.toLowerCase();
    if (v === q) score = Math.max(score, 3);
    else if (v.startsWith(q) || v.endsWith(`.${q}`)) score = Math.max(score, 2);
    else if (v.includes(q)) score = Math.max(score, 1);
  }
  return score;
}
