/**
 * Checking a graph document against vista-schema's JSON Schema, which is bundled as data (the
 * one home of the contract): a malformed document is refused with the field and the value
 * named, before any part of the viewer reads it. No DOM here.
 *
 * The schema is compiled once into checks; only the keywords the checker knows are accepted
 * (an unknown one is an error at compile time, so a schema change cannot be skipped silently).
 * Unknown fields are kept and ignored whatever `additionalProperties` says: a newer minor
 * version adds optional fields, and strictness is vista-core's `validate_document`'s job.
 */
import graphSchema from "../../../packages/vista-schema/src/vista_schema/schema/v1/graph.schema.json";

/** The JSON Schema subset the graph schema is written in. */
export interface Schema {
  readonly $ref?: string;
  readonly type?: JsonType | readonly JsonType[];
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly required?: readonly string[];
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly additionalProperties?: boolean | Schema;
  readonly items?: Schema;
  readonly oneOf?: readonly Schema[];
  readonly anyOf?: readonly Schema[];
  readonly $defs?: Readonly<Record<string, Schema>>;
}

type JsonType = "object" | "array" | "string" | "integer" | "number" | "boolean" | "null";

/** Keywords that only describe (never constrain) a value. */
const ANNOTATIONS = new Set(["$schema", "$id", "$comment", "title", "description", "default", "examples", "deprecated"]);
const KNOWN = new Set([
  "$ref", "type", "enum", "const", "pattern", "minimum", "maximum", "minItems", "maxItems", "minLength",
  "maxLength", "required", "properties", "additionalProperties", "items", "oneOf", "anyOf", "$defs",
]);

/** Where a value broke the schema: the path to it and what it should have been. */
export interface Problem {
  readonly path: (string | number)[];
  /** "must be a string, got 5", "is missing": read after the path. */
  readonly message: string;
}

type Check = (value: unknown) => Problem | null;

/** A compiled schema: `check(value)` gives the first problem, or null. */
export interface Checker {
  check(value: unknown): Problem | null;
}

export function compileSchema(root: Schema): Checker {
  const compiled = new Map<string, Check>();
  const resolve = (ref: string): Check => {
    const known = compiled.get(ref);
    if (known !== undefined) return known;
    const match = /^#\/\$defs\/([^/]+)$/.exec(ref);
    const target = match === null ? undefined : root.$defs?.[match[1] as string];
    if (target === undefined) throw new Error(`schema: unresolvable $ref ${JSON.stringify(ref)}`);
    // A placeholder first, so that a definition that refers to itself compiles.
    let check: Check = () => null;
    compiled.set(ref, (v) => check(v));
    check = compile(target);
    compiled.set(ref, check);
    return check;
  };

  function compile(schema: Schema): Check {
    for (const key of Object.keys(schema)) {
      if (!KNOWN.has(key) && !ANNOTATIONS.has(key)) throw new Error(`schema: unsupported keyword ${JSON.stringify(key)}`);
    }
    const checks: Check[] = [];
    if (schema.$ref !== undefined) checks.push(resolve(schema.$ref));
    if (schema.type !== undefined) {
      const types = typeof schema.type === "string" ? [schema.type] : schema.type;
      const expected = types.map(typeName).join(" or ");
      const fail = (v: unknown): Problem => problem(`must be ${expected}${bounds(schema)}, got ${show(v)}`);
      // One type, the common case, without a closure per value (the check runs on every value of a 100k-node document).
      const only = types.length === 1 ? (types[0] as JsonType) : null;
      checks.push(only !== null ? (v) => (hasType(v, only) ? null : fail(v)) : (v) => (types.some((t) => hasType(v, t)) ? null : fail(v)));
    }
    if (schema.enum !== undefined) {
      const allowed = schema.enum;
      const list = allowed.map((a) => JSON.stringify(a)).join(", ");
      checks.push((v) => (allowed.some((a) => same(a, v)) ? null : problem(`must be one of ${list}, got ${show(v)}`)));
    }
    if (schema.const !== undefined) {
      const wanted = schema.const;
      checks.push((v) => (same(wanted, v) ? null : problem(`must be ${JSON.stringify(wanted)}, got ${show(v)}`)));
    }
    if (schema.pattern !== undefined) {
      const re = new RegExp(schema.pattern, "u");
      const text = schema.pattern;
      checks.push((v) => (typeof v !== "string" || re.test(v) ? null : problem(`must match ${text}, got ${show(v)}`)));
    }
    const { minimum, maximum } = schema;
    if (minimum !== undefined || maximum !== undefined) {
      const numberName = schema.type === "integer" ? "an integer" : "a number";
      checks.push((v) =>
        typeof v !== "number" || ((minimum === undefined || v >= minimum) && (maximum === undefined || v <= maximum))
          ? null
          : problem(`must be ${numberName}${bounds(schema)}, got ${show(v)}`),
      );
    }
    const { minItems, maxItems, minLength, maxLength } = schema;
    if (minItems !== undefined || maxItems !== undefined) {
      checks.push((v) =>
        !Array.isArray(v) || ((minItems === undefined || v.length >= minItems) && (maxItems === undefined || v.length <= maxItems))
          ? null
          : problem(`must have ${countRange(minItems, maxItems, "item")}, got ${v.length}`),
      );
    }
    if (minLength !== undefined || maxLength !== undefined) {
      checks.push((v) =>
        typeof v !== "string" || ((minLength === undefined || v.length >= minLength) && (maxLength === undefined || v.length <= maxLength))
          ? null
          : problem(`must have ${countRange(minLength, maxLength, "character")}, got ${show(v)}`),
      );
    }
    if (schema.required !== undefined || schema.properties !== undefined || typeof schema.additionalProperties === "object") {
      checks.push(objectCheck(schema));
    }
    if (schema.items !== undefined) {
      const item = compile(schema.items);
      checks.push((v) => {
        if (!Array.isArray(v)) return null;
        for (let i = 0; i < v.length; i++) {
          const p = item(v[i]);
          if (p !== null) return within(i, p);
        }
        return null;
      });
    }
    const alternatives = schema.oneOf ?? schema.anyOf;
    if (alternatives !== undefined) checks.push(anyOf(alternatives));
    if (checks.length === 1) return checks[0] as Check;
    if (checks.length === 2) {
      const [a, b] = checks as [Check, Check];
      return (v) => a(v) ?? b(v);
    }
    return (v) => {
      for (let i = 0; i < checks.length; i++) {
        const p = (checks[i] as Check)(v);
        if (p !== null) return p;
      }
      return null;
    };
  }

  function objectCheck(schema: Schema): Check {
    const required = schema.required ?? [];
    const keys = Object.keys(schema.properties ?? {});
    const checks = keys.map((k) => compile((schema.properties as Record<string, Schema>)[k] as Schema));
    const known = new Set(keys);
    const extra = typeof schema.additionalProperties === "object" ? compile(schema.additionalProperties) : null;
    const has = Object.prototype.hasOwnProperty;
    return (v) => {
      if (!isObject(v)) return null;
      for (let i = 0; i < required.length; i++) {
        const key = required[i] as string;
        if (!has.call(v, key)) return within(key, problem("is missing"));
      }
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i] as string;
        const value = v[key];
        // An absent key reads undefined, which no JSON value is: only then ask whether it is there.
        if (value === undefined && !has.call(v, key)) continue;
        const p = (checks[i] as Check)(value);
        if (p !== null) return within(key, p);
      }
      if (extra !== null) {
        for (const key of Object.keys(v)) {
          if (known.has(key)) continue;
          const p = extra(v[key]);
          if (p !== null) return within(key, p);
        }
      }
      return null;
    };
  }

  // The viewer does not need oneOf's "exactly one": any alternative that holds will do.
  function anyOf(alternatives: readonly Schema[]): Check {
    const checks = alternatives.map(compile);
    const expected = alternatives.map(summary).join(" or ");
    return (v) => {
      const problems: Problem[] = [];
      for (const c of checks) {
        const p = c(v);
        if (p === null) return null;
        problems.push(p);
      }
      // A value of the right type for one alternative only: that alternative's problem says more.
      const typed = alternatives.map((a, i) => (matchesType(a, v) ? problems[i] : undefined)).filter((p) => p !== undefined);
      return typed.length === 1 ? (typed[0] as Problem) : problem(`must be ${expected}, got ${show(v)}`);
    };
  }

  /** A few words for what `schema` takes, for the message of a failed alternative. */
  function summary(schema: Schema): string {
    const target = schema.$ref === undefined ? schema : (definition(schema.$ref) ?? schema);
    const types = target.type === undefined ? [] : typeof target.type === "string" ? [target.type] : target.type;
    const words = types.map(typeName).join(" or ") || "a value";
    return target.pattern === undefined ? words : `${words} matching ${target.pattern}`;
  }

  function matchesType(schema: Schema, v: unknown): boolean {
    const target = schema.$ref === undefined ? schema : (definition(schema.$ref) ?? schema);
    if (target.type === undefined) return false;
    const types = typeof target.type === "string" ? [target.type] : target.type;
    return types.some((t) => hasType(v, t));
  }

  function definition(ref: string): Schema | undefined {
    const match = /^#\/\$defs\/([^/]+)$/.exec(ref);
    return match === null ? undefined : root.$defs?.[match[1] as string];
  }

  const check = compile(root);
  return { check };
}

function problem(message: string): Problem {
  return { path: [], message };
}

/** The problem of a member, seen from its container: the path grows from the inside out. */
function within(key: string | number, p: Problem): Problem {
  p.path.unshift(key);
  return p;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function hasType(v: unknown, t: JsonType): boolean {
  switch (t) {
    case "object":
      return isObject(v);
    case "array":
      return Array.isArray(v);
    case "string":
      return typeof v === "string";
    case "integer":
      return Number.isInteger(v);
    case "number":
      return typeof v === "number" && Number.isFinite(v);
    case "boolean":
      return typeof v === "boolean";
    case "null":
      return v === null;
  }
}

function typeName(t: JsonType): string {
  return t === "object" || t === "array" || t === "integer" ? `an ${t}` : t === "null" ? "null" : `a ${t}`;
}

function bounds(schema: Schema): string {
  const parts: string[] = [];
  if (schema.minimum !== undefined) parts.push(`≥ ${schema.minimum}`);
  if (schema.maximum !== undefined) parts.push(`≤ ${schema.maximum}`);
  return parts.length === 0 ? "" : ` ${parts.join(" and ")}`;
}

function countRange(min: number | undefined, max: number | undefined, noun: string): string {
  const plural = (n: number): string => `${n} ${noun}${n === 1 ? "" : "s"}`;
  if (min !== undefined && max !== undefined) return `${min} to ${plural(max)}`;
  if (min !== undefined) return `at least ${plural(min)}`;
  return `at most ${plural(max ?? 0)}`;
}

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  return typeof a === "object" && a !== null && typeof b === "object" && b !== null && JSON.stringify(a) === JSON.stringify(b);
}

const SHOWN_LENGTH = 80;

/** A value as a message shows it: JSON where JSON can say it (NaN, Infinity and undefined too). */
export function show(v: unknown): string {
  if (v === undefined) return "nothing";
  if (typeof v === "number" && !Number.isFinite(v)) return String(v);
  if (typeof v === "function") return "a function";
  if (typeof v === "bigint") return `${v}n`;
  let text: string;
  try {
    text = JSON.stringify(v, (_k, x: unknown) => (typeof x === "number" && !Number.isFinite(x) ? String(x) : x)) ?? String(v);
  } catch {
    text = Object.prototype.toString.call(v);
  }
  return text.length <= SHOWN_LENGTH ? text : `${text.slice(0, SHOWN_LENGTH - 1)}…`;
}

/** `nodes[3].outputs[0].shape[1]`: a path as a reader of the JSON would write it. */
export function formatPath(path: readonly (string | number)[]): string {
  let text = "";
  for (const part of path) {
    if (typeof part === "number") text += `[${part}]`;
    else if (!/^[A-Za-z_$][\w$]*$/.test(part)) text += `[${JSON.stringify(part)}]`;
    else text += text === "" ? part : `.${part}`;
  }
  return text === "" ? "the document" : text;
}

/** The graph schema (v1), compiled once on first use. */
let graphChecker: Checker | null = null;
export function graphSchemaChecker(): Checker {
  graphChecker ??= compileSchema(graphSchema as unknown as Schema);
  return graphChecker;
}

/** The document's lists that grow with the model, whose items a first view checks only in part. */
export const LONG_LISTS = ["nodes", "edges"] as const;
export type LongList = (typeof LONG_LISTS)[number];

/**
 * The graph schema in two parts, both taken from the one schema: `head` checks the document
 * but not the items of its long lists, `item` checks one item of a long list.
 */
export interface StagedChecker {
  readonly head: Checker;
  /** Item `at` of `list`: its problem, with a path from the document (`nodes[3].label`), or null. */
  item(list: LongList, value: unknown, at: number): Problem | null;
}

let stagedChecker: StagedChecker | null = null;
export function stagedGraphChecker(): StagedChecker {
  if (stagedChecker !== null) return stagedChecker;
  const schema = graphSchema as unknown as Schema;
  const properties: Record<string, Schema> = { ...schema.properties };
  const items = new Map<string, Checker>();
  for (const list of LONG_LISTS) {
    const { items: item, ...rest } = properties[list] as Schema;
    if (item === undefined) throw new Error(`schema: "${list}" has no items`);
    properties[list] = rest;
    items.set(list, compileSchema({ ...item, $defs: schema.$defs }));
  }
  const head = compileSchema({ ...schema, properties });
  stagedChecker = {
    head,
    item(list, value, at) {
      const p = (items.get(list) as Checker).check(value);
      return p === null ? null : within(list, within(at, p));
    },
  };
  return stagedChecker;
}
