// Writes the unit tests' documents (test/fixtures/*.json) from the known-model snapshots of
// tests-integration (documents vista-core wrote, which that suite checks against the JSON
// Schema), so the fixtures are never kept by hand. `npm run gen:fixtures` writes them; the drift
// check (scripts/check-drift.mjs) regenerates them in memory and fails when a file differs.
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const SNAPSHOTS = path.resolve(here, "../../tests-integration/snapshots/__snapshots__/test_known_models");
export const FIXTURES = path.resolve(here, "../test/fixtures");
/** Fixture name -> the known model (tests-integration/known_models.py) whose snapshot it is. */
export const SOURCES = { mlp: "mlp", failing: "fails_in_cat", bert: "hf_bert" };

/** The fixtures' texts by file name: each snapshot's document as compact JSON. */
export async function generateFixtures() {
  const out = {};
  for (const [name, model] of Object.entries(SOURCES)) {
    const text = await readFile(path.join(SNAPSHOTS, `test_document_snapshot[${model}].json`), "utf8");
    out[`${name}.json`] = JSON.stringify(JSON.parse(text)) + "\n";
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [file, text] of Object.entries(await generateFixtures())) {
    await writeFile(path.join(FIXTURES, file), text);
    console.log(`wrote ${path.relative(process.cwd(), path.join(FIXTURES, file))}`);
  }
}
