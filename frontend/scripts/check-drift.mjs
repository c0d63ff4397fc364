// Fails when the committed bundle (dist/vista-viewer.js) or the generated schema types
// (src/model/schema.generated.ts) are not what the sources build: rebuilds both into memory /
// a temporary directory and compares byte for byte.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { build, ROOT } from "./build.mjs";
import { generateTypes, OUTPUT as TYPES } from "./gen-types.mjs";

let failed = false;

const types = await generateTypes();
const committedTypes = await readFile(TYPES, "utf8").catch(() => null);
if (committedTypes !== types) {
  console.error("src/model/schema.generated.ts is out of date with vista-core's schema: run npm run gen:types");
  failed = true;
}

const dir = await mkdtemp(path.join(os.tmpdir(), "vista-viewer-"));
try {
  const fresh = path.join(dir, "vista-viewer.js");
  await build(fresh);
  const built = await readFile(fresh);
  const committed = await readFile(path.join(ROOT, "dist", "vista-viewer.js")).catch(() => null);
  if (committed === null || !built.equals(committed)) {
    console.error(
      "frontend/dist/vista-viewer.js differs from what the sources build: run npm run build " +
        "(in frontend/) and commit dist/vista-viewer.js.",
    );
    failed = true;
  } else {
    console.log(`dist/vista-viewer.js is up to date (${built.length} bytes)`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
