import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
    // Layout tests run Graphviz in WebAssembly; on a loaded 2-core machine 5 s was too short.
    testTimeout: 60_000,
  },
});
