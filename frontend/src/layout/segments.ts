/**
 * Splitting an open module with very many members into consecutive segments before layout:
 * Graphviz recurses about as deep as a chain is long, and a 20,000-op chain in one module
 * overflowed its stack. Each segment is a container of the layout's own (no header, no
 * border, never drawn) laid out alone and stacked by its parent like an open child.
 */
import type { LayoutContainerSpec, LayoutGraph } from "./types";

/**
 * Members above which a container is split. Graphviz is superlinear in a chain's length (a
 * chain of 100 closed boxes lays out in about 0.15 s, 400 in 1 s, 1,000 in 20 s), and a +/−
 * lays out again only the segment it changed.
 */
export const MAX_MEMBERS = 200;
/** Members per segment: identical stretches of a long chain give identical DOT, laid out once. */
export const SEGMENT_MEMBERS = 100;

/** The layout graph with long containers split, and the ids of the segments it added. */
export function segmentGraph(graph: LayoutGraph): { graph: LayoutGraph; segments: ReadonlySet<string> } {
  if (graph.containers.every((c) => c.members.length <= MAX_MEMBERS)) return { graph, segments: new Set() };
  const segments = new Set<string>();
  const containers: LayoutContainerSpec[] = [];
  // A loop, not recursion: a container of segments that is itself too long is split again.
  const pending = [...graph.containers];
  for (let c = pending.pop(); c !== undefined; c = pending.pop()) {
    if (c.members.length <= MAX_MEMBERS) {
      containers.push(c);
      continue;
    }
    const members: string[] = [];
    for (let start = 0, k = 0; start < c.members.length; start += SEGMENT_MEMBERS, k++) {
      // "\u0000" never occurs in a document id, so segment ids cannot collide with them.
      const id = `${c.id}\u0000${k}`;
      segments.add(id);
      members.push(id);
      const part = c.members.slice(start, start + SEGMENT_MEMBERS);
      pending.push({ id, parent: c.id, members: part, header: 0, minWidth: 0, control: 0, title: 0 });
    }
    pending.push({ ...c, members });
  }
  // Containers keep the order they came in (segments after their parent): the engine needs no more.
  return { graph: { ...graph, containers: containers.reverse() }, segments };
}
