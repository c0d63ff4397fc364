/**
 * Reading a diff document (vista_core.GraphDiff.to_json(), contract: diff.md) into what the diff
 * view asks: each element's change by id, in the union and in either trace, how many changes
 * each module call holds in its subtree, the matched pairs, and the walk order. No DOM here.
 */
import { DocumentError, moduleAncestry, readDocument, type Edge, type GraphIndex } from "./document";
import type { Change } from "./schema.generated";

/** The diff_version major this viewer reads. */
export const SUPPORTED_DIFF_MAJOR = 1;

export type { Change, DiffDocument, FieldChange } from "./schema.generated";
export type ChangeStatus = Change["status"];
export type ChangeElement = Change["element"];
export type Side = "a" | "b";

/** The changes of one graph (the union, a or b) by its own ids. */
export interface DiffMarks {
  readonly index: GraphIndex;
  /** Module and node changes by id. */
  readonly byId: ReadonlyMap<string, Change>;
  /** Edge changes by edgeKey(). */
  readonly byEdge: ReadonlyMap<string, Change>;
  /** For each module call, the changes strictly inside its subtree (not its own). */
  readonly inside: ReadonlyMap<string, ReadonlySet<Change>>;
}

export interface DiffIndex {
  readonly version: string;
  readonly equal: boolean;
  /** In graph order: the order "next change" walks. */
  readonly changes: readonly Change[];
  readonly union: DiffMarks;
  /** Read on first use: a broken a or b graph throws then. */
  readonly a: DiffMarks;
  readonly b: DiffMarks;
  /** Matched module and node ids: a id -> b id and back. */
  readonly aToB: ReadonlyMap<string, string>;
  readonly bToA: ReadonlyMap<string, string>;
  /** Union id -> id in a / in b, and back, for matched and unmatched elements alike. */
  readonly unionTo: Readonly<Record<Side, ReadonlyMap<string, string>>>;
  readonly toUnion: Readonly<Record<Side, ReadonlyMap<string, string>>>;
}

/** The key a change record gives an edge: `n3:0->n7:1`. */
export function edgeKey(e: Pick<Edge, "source" | "source_output" | "target" | "target_input">): string {
  return `${e.source}:${e.source_output}->${e.target}:${e.target_input}`;
}

/** The two node ids of an edge key, or null when it is not one. */
export function edgeEnds(key: string): { source: string; target: string } | null {
  const m = /^(.+):\d+->(.+):\d+$/.exec(key);
  return m === null ? null : { source: m[1] as string, target: m[2] as string };
}

/** Whether a parsed JSON value is a diff document (and not a graph document). */
export function isDiffDocument(input: unknown): boolean {
  return typeof input === "object" && input !== null && !Array.isArray(input) && "diff_version" in input;
}

const STATUSES: ReadonlySet<string> = new Set(["added", "removed", "changed"]);
const ELEMENTS: ReadonlySet<string> = new Set(["module", "node", "edge"]);

function fail(message: string): never {
  throw new DocumentError(`Invalid diff document: ${message}. Write it with vista_core.diff(a, b).to_json().`);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function readGraph(doc: Record<string, unknown>, key: "a" | "b" | "union"): GraphIndex {
  if (!isRecord(doc[key])) fail(`"${key}" must be a graph document (an object), got ${JSON.stringify(doc[key]) ?? "nothing"}`);
  try {
    return readDocument(doc[key]);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new DocumentError(`Invalid diff document: its "${key}" graph: ${message}`);
  }
}

function readChanges(list: unknown): Change[] {
  if (!Array.isArray(list)) fail(`"changes" must be an array, got ${JSON.stringify(list)}`);
  return list.map((c, i): Change => {
    if (!isRecord(c)) fail(`changes[${i}] must be an object, got ${JSON.stringify(c)}`);
    const at = `changes[${i}]`;
    if (typeof c["element"] !== "string" || !ELEMENTS.has(c["element"])) fail(`${at}.element must be "module", "node" or "edge", got ${JSON.stringify(c["element"])}`);
    if (typeof c["status"] !== "string" || !STATUSES.has(c["status"])) fail(`${at}.status must be "added", "removed" or "changed", got ${JSON.stringify(c["status"])}`);
    if (typeof c["id"] !== "string") fail(`${at}.id must be a string, got ${JSON.stringify(c["id"])}`);
    for (const side of ["a", "b"] as const) {
      if (c[side] !== null && typeof c[side] !== "string") fail(`${at}.${side} must be an id or null, got ${JSON.stringify(c[side])}`);
    }
    const fields = c["fields"];
    if (fields !== undefined && !Array.isArray(fields)) fail(`${at}.fields must be an array, got ${JSON.stringify(fields)}`);
    (fields ?? []).forEach((f: unknown, j: number) => {
      if (!isRecord(f) || typeof f["field"] !== "string") fail(`${at}.fields[${j}].field must be a string`);
    });
    return c as unknown as Change;
  });
}

function readPairs(matches: Record<string, unknown>, key: "modules" | "nodes"): [string, string, string][] {
  const list = matches[key] ?? [];
  if (!Array.isArray(list)) fail(`"matches.${key}" must be an array, got ${JSON.stringify(list)}`);
  return list.map((p: unknown, i: number) => {
    if (!Array.isArray(p) || p.length !== 3 || !p.every((x) => typeof x === "string")) {
      fail(`matches.${key}[${i}] must be [a id, b id, union id], got ${JSON.stringify(p)}`);
    }
    return p as [string, string, string];
  });
}

/** Reads and checks a diff document; throws DocumentError naming what is wrong. */
export function readDiffDocument(input: unknown): DiffIndex {
  if (!isRecord(input)) fail(`expected a JSON object, got ${JSON.stringify(input)}`);
  const version = input["diff_version"];
  if (typeof version !== "string" || !/^[0-9]+\.[0-9]+$/.test(version)) {
    fail(`"diff_version" is ${JSON.stringify(version)}; expected "${SUPPORTED_DIFF_MAJOR}.x"`);
  }
  const major = Number(version.split(".")[0]);
  if (major !== SUPPORTED_DIFF_MAJOR) {
    throw new DocumentError(
      `Unsupported diff_version "${version}": this viewer reads diff documents ${SUPPORTED_DIFF_MAJOR}.x. ` +
        `Use a vista-render-html release made for diff version ${major}.x.`,
    );
  }
  const union = readGraph(input, "union");
  for (const side of ["a", "b"] as const) {
    if (!isRecord(input[side])) fail(`"${side}" must be a graph document (an object), got ${JSON.stringify(input[side]) ?? "nothing"}`);
  }
  const changes = readChanges(input["changes"]);
  const matches = isRecord(input["matches"]) ? input["matches"] : fail(`"matches" must be an object, got ${JSON.stringify(input["matches"])}`);
  const pairs = [...readPairs(matches, "modules"), ...readPairs(matches, "nodes")];

  const aToB = new Map<string, string>();
  const bToA = new Map<string, string>();
  const unionTo = { a: new Map<string, string>(), b: new Map<string, string>() };
  const toUnion = { a: new Map<string, string>(), b: new Map<string, string>() };
  const link = (side: Side, id: string, u: string): void => {
    unionTo[side].set(u, id);
    toUnion[side].set(id, u);
  };
  for (const [x, y, u] of pairs) {
    aToB.set(x, y);
    bToA.set(y, x);
    link("a", x, u);
    link("b", y, u);
  }
  for (const c of changes) {
    if (c.element === "edge") continue;
    if (c.a !== null) link("a", c.a, c.id);
    if (c.b !== null) link("b", c.b, c.id);
  }

  const sideEdgeKey = (c: Change, side: Side): string | null => {
    const own = c[side];
    if (own !== null && edgeEnds(own) !== null) return own;
    if (own === null && c.status !== "changed") return null;
    // An edge record that names no edge key of its own side: its ends mapped from the union.
    const m = /^(.+)(:\d+->)(.+)(:\d+)$/.exec(c.id);
    const s = m === null ? undefined : unionTo[side].get(m[1] as string);
    const t = m === null ? undefined : unionTo[side].get(m[3] as string);
    return s === undefined || t === undefined || m === null ? null : `${s}${m[2]}${t}${m[4]}`;
  };

  const read: { a?: DiffMarks; b?: DiffMarks } = {};
  return {
    version,
    equal: input["equal"] === true,
    changes,
    union: marks(union, changes, (c) => c.id),
    // a and b are read when first asked for (side by side): the first view needs only the union.
    get a(): DiffMarks {
      read.a ??= marks(readGraph(input, "a"), changes, (c) => (c.element === "edge" ? sideEdgeKey(c, "a") : c.a));
      return read.a;
    },
    get b(): DiffMarks {
      read.b ??= marks(readGraph(input, "b"), changes, (c) => (c.element === "edge" ? sideEdgeKey(c, "b") : c.b));
      return read.b;
    },
    aToB,
    bToA,
    unionTo,
    toUnion,
  };
}

/** The changes of one graph, by the id `idOf` gives each change in it (null: not in it). */
function marks(index: GraphIndex, changes: readonly Change[], idOf: (c: Change) => string | null): DiffMarks {
  const byId = new Map<string, Change>();
  const byEdge = new Map<string, Change>();
  const inside = new Map<string, Set<Change>>();
  let change: Change;
  const count = (modules: Iterable<string>): void => {
    for (const m of modules) {
      const set = inside.get(m);
      if (set === undefined) inside.set(m, new Set([change]));
      else set.add(change);
    }
  };
  const above = (moduleId: string, inclusive: boolean): string[] => {
    if (!index.modules.has(moduleId)) return [];
    const chain = moduleAncestry(index, moduleId);
    return inclusive ? chain : chain.slice(0, -1);
  };
  for (const c of changes) {
    const id = idOf(c);
    if (id === null) continue;
    change = c;
    if (c.element === "edge") {
      byEdge.set(id, c);
      const ends = edgeEnds(id);
      if (ends === null) continue;
      // An edge lies in the innermost call holding both its ends (as vista_core.diff folds runs by).
      const source = index.nodes.get(ends.source)?.module;
      const target = index.nodes.get(ends.target)?.module;
      if (source === undefined || target === undefined || !index.modules.has(source) || !index.modules.has(target)) continue;
      const into = new Set(moduleAncestry(index, target));
      const outer = moduleAncestry(index, source).filter((m) => into.has(m));
      count(outer);
    } else if (c.element === "module") {
      byId.set(id, c);
      count(above(id, false));
    } else {
      byId.set(id, c);
      const node = index.nodes.get(id);
      if (node !== undefined) count(above(node.module, true));
    }
  }
  return { index, byId, byEdge, inside };
}

/** What a drawn item stands for changed: its own status, and the changes inside it. */
export interface ItemMark {
  readonly status: ChangeStatus | null;
  /** Changes inside the item's modules (a closed box or folded run), not counting its own. */
  readonly inside: number;
}

/** The mark of a drawn item standing for `members` (one node, or one or more module calls). */
export function itemMark(marks: DiffMarks, members: readonly string[]): ItemMark {
  if (members.length === 1) {
    const id = members[0] as string;
    return { status: marks.byId.get(id)?.status ?? null, inside: marks.inside.get(id)?.size ?? 0 };
  }
  // A folded run: its calls' own changes and theirs inside, each counted once (an edge between two calls is in both).
  const all = new Set<Change>();
  for (const id of members) {
    const own = marks.byId.get(id);
    if (own !== undefined) all.add(own);
    for (const c of marks.inside.get(id) ?? []) all.add(c);
  }
  return { status: null, inside: all.size };
}

/** The status of a drawn edge that merges the document edges `keys`: one status shared by all, or "changed" when mixed. */
export function edgeMark(marks: DiffMarks, keys: readonly string[]): ChangeStatus | null {
  let status: ChangeStatus | null = null;
  let plain = false;
  for (const key of keys) {
    const s = marks.byEdge.get(key)?.status ?? null;
    if (s === null) plain = true;
    else status = status === null || status === s ? s : "changed";
  }
  if (status !== null && plain) return "changed";
  return status;
}

/** The element a change is shown at, in the graph `side` (null: the union): a module or node id, or for an edge its target node. */
export function changeTarget(d: DiffIndex, c: Change, side: Side | null): string | null {
  let id: string | null;
  if (side === null) id = c.id;
  else if (c.element === "edge") {
    const key = [...d[side].byEdge].find(([, v]) => v === c)?.[0];
    id = key ?? null;
  } else id = c[side];
  if (id === null) return null;
  if (c.element !== "edge") return id;
  return edgeEnds(id)?.target ?? null;
}

/** A value of a changed field as the details panel shows it: shapes as `1×12×768`. */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return "none";
  if (Array.isArray(value) && value.every((x) => typeof x === "number")) return value.length === 0 ? "scalar" : value.join("×");
  if (typeof value === "string") return value;
  if (typeof value === "number") return value.toLocaleString("en-US");
  if (typeof value === "object" && Array.isArray((value as { shape?: unknown }).shape)) {
    // A tensor's metadata (an output added or dropped): its shape and dtype, as labels show tensors.
    const t = value as { shape: unknown[]; dtype?: unknown };
    return [formatValue(t.shape), typeof t.dtype === "string" ? t.dtype : ""].filter((x) => x !== "").join(" · ");
  }
  return JSON.stringify(value);
}
