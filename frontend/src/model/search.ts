/** Search over op names, node labels, module paths and class names. No DOM. */
import type { GraphIndex } from "./document";

export interface SearchHit {
  /** A node id (`n12`) or module id (`m3`). */
  readonly id: string;
  readonly type: "node" | "module";
  /** What to show in the result list. */
  readonly title: string;
  readonly detail: string;
}

/**
 * Case-insensitive substring search. Exact matches rank first, then prefix matches, then
 * the rest; ties keep document order (modules before nodes). At most `limit` hits.
 */
export function search(index: GraphIndex, query: string, limit = 200): SearchHit[] {
  const q = query.trim().toLowerCase();
  if (q === "") return [];
  const scored: { hit: SearchHit; score: number; order: number }[] = [];
  let order = 0;
  for (const id of index.moduleOrder) {
    const m = index.modules.get(id);
    if (m === undefined) continue;
    const score = best(q, [m.path, m.name, m.class_name, m.class_qualname]);
    if (score > 0) {
      scored.push({
        hit: { id, type: "module", title: m.path === "" ? m.class_name : m.path, detail: m.class_name },
        score,
        order: order,
      });
    }
    order++;
  }
  for (const n of index.doc.nodes) {
    const score = best(q, [n.label, n.name]);
    if (score > 0) {
      const m = index.modules.get(n.module);
      scored.push({
        hit: { id: n.id, type: "node", title: n.name, detail: `${n.kind} in ${m?.path === "" ? m.class_name : (m?.path ?? "")}` },
        score,
        order: order,
      });
    }
    order++;
  }
  scored.sort((a, b) => b.score - a.score || a.order - b.order);
  return scored.slice(0, limit).map((s) => s.hit);
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
