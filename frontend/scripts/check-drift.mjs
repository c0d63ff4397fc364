// Fails when the committed build (vista-render-html's static/: the bundle and its two assets, the
// one copy), the unit tests' fixtures (made from the known-model snapshots) or the generated schema types
// (src/model/schema.generated.ts) are not what the sources build: rebuilds both into memory /
// a temporary directory and compares byte for byte.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { build, OUT_DIR, OUTPUTS } from "./build.mjs";
import { generateTypes, OUTPUT as TYPES } from "./gen-types.mjs";
import { FIXTURES, generateFixtures } from "./gen-fixtures.mjs";

const SHOWN = path.relative(path.resolve(OUT_DIR, "../../../../.."), OUT_DIR);
let failed = false;

const types = await generateTypes();
const committedTypes = await readFile(TYPES, "utf8").catch(() => null);
if (committedTypes !== types) {
  console.error("src/model/schema.generated.ts is out of date with vista-schema's schema: run npm run gen:types");
  failed = true;
}

for (const [file, text] of Object.entries(await generateFixtures())) {
  const committed = await readFile(path.join(FIXTURES, file), "utf8").catch(() => null);
  if (committed !== text) {
    console.error(`test/fixtures/${file} is not the known-model snapshot it comes from: run npm run gen:fixtures`);
    failed = true;
  }
}

const dir = await mkdtemp(path.join(os.tmpdir(), "vista-viewer-"));
try {
  await build(dir);
  for (const name of OUTPUTS) {
    const built = await readFile(path.join(dir, name));
    const committed = await readFile(path.join(OUT_DIR, name)).catch(() => null);
    if (committed === null || !built.equals(committed)) {
      console.error(
        `${SHOWN}/${name} differs from what the sources build: run npm run build ` +
          `(in frontend/) and commit it.`,
      );
      failed = true;
    } else {
      console.log(`${SHOWN}/${name} is up to date (${built.length} bytes)`);
    }
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
