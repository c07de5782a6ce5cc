import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts", "node-http/index": "src/node-http/index.ts" },
  format: ["esm"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "es2022",
});
