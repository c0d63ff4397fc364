import { describe, expect, it } from "vitest";
import { compileSchema, formatPath, graphSchemaChecker, show, type Schema } from "../src/model/check";
import { DocumentError, readDocument, readForView, type GraphDocument } from "../src/model/document";
import { fixture, stackedBlocks } from "./helpers";

type Doc = Record<string, unknown> & GraphDocument;

/** The mlp fixture changed by `edit`, as plain JSON data. */
function broken(edit: (doc: any) => void): Doc {
  const doc = structuredClone(fixture("mlp")) as Doc;
  edit(doc);
  return doc;
}

function messageOf(doc: unknown): string {
  try {
    readDocument(doc);
  } catch (error) {
    expect(error).toBeInstanceOf(DocumentError);
    return (error as Error).message;
  }
  throw new Error("the document was read");
}

const CASES: [string, (d: any) => void, string][] = [
    ["a missing field", (d: any) => delete d.nodes[3].label, 'nodes[3].label is missing (node "n3")'],
    ["a wrong type", (d: any) => (d.nodes[3].label = 5), 'nodes[3].label must be a string, got 5 (node "n3")'],
    ["null for a string", (d: any) => (d.modules[1].class_name = null), 'modules[1].class_name must be a string, got null (module "m1")'],
    ["a missing module path", (d: any) => delete d.modules[1].path, 'modules[1].path is missing (module "m1")'],
    ["an unknown kind", (d: any) => (d.nodes[3].kind = "opp"), 'nodes[3].kind must be one of "input", "output", "parameter", "buffer", "constant", "op", "error", got "opp" (node "n3")'],
    ["a negative dimension", (d: any) => (d.edges[2].tensor.shape[1] = -1), 'edges[2].tensor.shape[1] must be an integer ≥ 0, got -1 (edge "n2" -> "n3")'],
    ["a fractional line", (d: any) => (d.nodes[3].source.line = 2.5), 'nodes[3].source.line must be an integer ≥ 0, got 2.5 (node "n3")'],
    ["NaN", (d: any) => (d.nodes[3].outputs[0].shape[0] = Number.NaN), 'nodes[3].outputs[0].shape[0] must be an integer ≥ 0, got NaN (node "n3")'],
    ["Infinity", (d: any) => (d.modules[2].num_params = Number.POSITIVE_INFINITY), 'modules[2].num_params must be an integer ≥ 0, got Infinity (module "m2")'],
    ["a null node", (d: any) => (d.nodes[3] = null), "nodes[3] must be an object, got null"],
    ["a string error", (d: any) => (d.error = "boom"), 'error must be an object, got "boom"'],
    ["a bad parent", (d: any) => (d.modules[1].parent = 7), 'modules[1].parent must be a string matching ^m[0-9]+$ or null, got 7 (module "m1")'],
    ["a bad parent id", (d: any) => (d.modules[1].parent = "x1"), 'modules[1].parent must match ^m[0-9]+$, got "x1" (module "m1")'],
    ["a string of modules", (d: any) => (d.repeated_blocks = [{ parent: "m0", modules: "m1", signature: "s" }]), 'repeated_blocks[0].modules must be an array, got "m1"'],
    ["no modules", (d: any) => (d.modules = []), "modules must have at least 1 item, got 0"],
    ["no nodes", (d: any) => delete d.nodes, "nodes is missing"],
];

describe("the graph schema check", () => {
  it("compiles the bundled schema and passes vista-core's documents", () => {
    const checker = graphSchemaChecker();
    for (const name of ["mlp", "failing", "bert"] as const) expect(checker.check(fixture(name))).toBeNull();
    expect(checker.check(stackedBlocks(4))).toBeNull();
  });

  it("refuses to compile a keyword it does not check, rather than skip it", () => {
    expect(() => compileSchema({ type: "object", propertyNames: { pattern: "^a" } } as unknown as Schema)).toThrow(
      /unsupported keyword "propertyNames"/,
    );
    expect(() => compileSchema({ $ref: "#/$defs/missing" })).toThrow(/unresolvable \$ref/);
  });

  it.each(CASES)("names the field and the value of %s", (_what, edit, expected) => {
    const message = messageOf(broken(edit));
    expect(message).toBe(`Invalid graph document: ${expected}. Check the document with vista_core.validate_document(document).`);
  });

  it("keeps and ignores fields it does not know (a newer minor version adds them)", () => {
    const doc = broken((d) => {
      d.schema_version = "1.7";
      d.nodes[3].flops = 1024;
      d.modules[1].peak_bytes = { total: 4 };
      d.edges[0].stats = [1, 2];
      d.insight = { version: 1 };
    });
    const index = readDocument(doc);
    expect((index.nodes.get("n3") as unknown as { flops: number }).flops).toBe(1024);
  });

  it("still names dangling references, which the schema cannot see", () => {
    expect(messageOf(broken((d) => (d.edges[2].target = "n999"))))
      .toBe('Invalid graph document: edges[2].target is "n999", which is no node\'s id (edge "n2" -> "n999").');
    expect(messageOf(broken((d) => (d.nodes[3].module = "m99"))))
      .toBe('Invalid graph document: nodes[3].module is "m99", which is no module\'s id (node "n3").');
    expect(messageOf(broken((d) => {
      d.modules[1].parent = "m2";
      d.modules[2].parent = "m1";
    }))).toBe('Invalid graph document: modules[1].parent is "m2", which makes the module calls a cycle instead of a tree ("m1" -> "m2" -> "m1").');
    expect(messageOf(broken((d) => d.modules.reverse())))
      .toMatch(/^Invalid graph document: modules\[0\]\.parent must be null \(the first module call is the model's own\), got "m\d+" \(module "m\d+"\)\.$/);
    expect(messageOf(broken((d) => (d.modules[2].parent = "m99"))))
      .toBe('Invalid graph document: modules[2].parent is "m99", which is no module\'s id (module "m2").');
  });

  it("shows values the way JSON would, short", () => {
    expect(show(undefined)).toBe("nothing");
    expect(show(Number.NEGATIVE_INFINITY)).toBe("-Infinity");
    expect(show({ a: [Number.NaN] })).toBe('{"a":["NaN"]}');
    expect(show("x".repeat(200))).toHaveLength(80);
    expect(formatPath(["nodes", 3, "outputs", 0, "shape", 1])).toBe("nodes[3].outputs[0].shape[1]");
    expect(formatPath(["a b"])).toBe('["a b"]');
    expect(formatPath([])).toBe("the document");
  });

  it("checks a large document in about the time a JSON round trip of it takes", () => {
    const doc = fixture("bert");
    const time = (f: () => void): number => {
      const started = performance.now();
      for (let i = 0; i < 10; i++) f();
      return performance.now() - started;
    };
    time(() => graphSchemaChecker().check(doc)); // warm up both
    time(() => JSON.parse(JSON.stringify(doc)));
    const check = time(() => expect(graphSchemaChecker().check(doc)).toBeNull());
    const roundTrip = time(() => JSON.parse(JSON.stringify(doc)));
    // Relative, so a busy machine slows both: the point is that it is not quadratic or allocation-heavy.
    expect(check).toBeLessThan(3 * roundTrip);
  });
});

/** The message a view reads `doc` with: read for the first view, then checked to the end. */
async function viewMessageOf(doc: unknown, pause: () => Promise<boolean> = async () => true): Promise<string> {
  try {
    await readForView(doc).checkRest(pause, 0);
  } catch (error) {
    expect(error).toBeInstanceOf(DocumentError);
    return (error as Error).message;
  }
  throw new Error("the document was read");
}

describe("reading a document for its first view, the rest checked after", () => {
  it.each(CASES)("names %s as readDocument does", async (_what, edit) => {
    const doc = broken(edit);
    expect(await viewMessageOf(doc)).toBe(messageOf(doc));
  });

  it("names the first problem in document order, as readDocument does", async () => {
    const doc = broken((d) => {
      d.nodes[3].label = 5;
      d.repeated_blocks = [{ parent: "m0", modules: "m1", signature: "s" }];
      d.edges[2].tensor.shape = "2x4";
    });
    expect(await viewMessageOf(doc)).toBe('Invalid graph document: nodes[3].label must be a string, got 5 (node "n3"). Check the document with vista_core.validate_document(document).');
    expect(await viewMessageOf(doc)).toBe(messageOf(doc));
  });

  it("names references the schema cannot see as readDocument does, an edge's ends with its item", async () => {
    const dangling = broken((d) => (d.edges[2].target = "n999"));
    expect(await viewMessageOf(dangling)).toBe(messageOf(dangling));
    expect(messageOf(dangling)).toContain('edges[2].target is "n999", which is no node\'s id');
    // readDocument names a schema problem before any dangling end, even one in a later edge.
    const both = broken((d) => {
      d.edges[1].source = "n999";
      d.edges[2].tensor.shape = "2x4";
    });
    expect(messageOf(both)).toContain("edges[2].tensor.shape must be");
    expect(await viewMessageOf(both)).toBe(messageOf(both));
    const twice = broken((d) => (d.nodes[4].id = d.nodes[2].id));
    expect(messageOf(twice)).toBe('Invalid graph document: nodes[4].id "n2" is the id of an earlier node too.');
    expect(await viewMessageOf(twice)).toBe(messageOf(twice));
    // A repeated id before a node of no module is named first, though the view indexes ids later.
    const thenLost = broken((d) => {
      d.nodes[4].id = d.nodes[2].id;
      d.nodes[6].module = "m99";
    });
    expect(messageOf(thenLost)).toBe(messageOf(twice));
    expect(await viewMessageOf(thenLost)).toBe(messageOf(thenLost));
  });

  it.each([["mlp", fixture("mlp")], ["stacked blocks", stackedBlocks(6)]])("indexes the nodes of %s as readDocument does", (_what, doc) => {
    const read = readForView(doc).index;
    const full = readDocument(doc);
    expect([...read.nodeIndex]).toEqual([...full.nodeIndex]);
    expect([...read.nodes.keys()]).toEqual((doc as Doc).nodes.map((n: any) => n.id));
    expect([...read.nodes.values()]).toEqual([...full.nodes.values()]);
    expect([...read.moduleFirstNode]).toEqual([...full.moduleFirstNode]);
    expect([...read.glueOf]).toEqual([...full.glueOf]);
  });

  it("finds a malformed node far from the first view in the slices after it", async () => {
    const doc = structuredClone(stackedBlocks(2000)) as Doc;
    const last = doc.nodes.map((n, i) => ((n.outputs ?? []).length > 0 ? i : -1)).reduce((a, b) => Math.max(a, b));
    (doc.nodes[last] as any).outputs[0].shape[0] = -1;
    const read = readForView(doc);
    expect(read.index.nodes.size).toBe(doc.nodes.length);
    read.checkItems("nodes", [0, 1, 2]);
    read.checkItems("edges", [0, 1]);
    expect(() => read.checkItems("nodes", [last])).toThrow(DocumentError);
    let pauses = 0;
    const message = await viewMessageOf(doc, async () => ++pauses > 0);
    expect(message).toBe(messageOf(doc));
    expect(message).toContain(`nodes[${last}].outputs[0].shape[0] must be an integer ≥ 0, got -1`);
    expect(pauses).toBeGreaterThan(10);
  });

  it("reports the schema's problem for what broke code that read an unchecked part", () => {
    const doc = broken((d) => (d.edges[2].tensor = null));
    const read = readForView(doc);
    const crash = new TypeError("Cannot read properties of null (reading 'shape')");
    expect((read.explain(crash) as Error).message).toBe(messageOf(doc));
    expect(readForView(fixture("mlp")).explain(crash)).toBe(crash);
  });

  it("stops when a pause says so", async () => {
    const doc = structuredClone(stackedBlocks(2000)) as Doc;
    (doc.nodes[doc.nodes.length - 1] as any).label = 5;
    await expect(readForView(doc).checkRest(async () => false, 0)).resolves.toBeUndefined();
  });
});
