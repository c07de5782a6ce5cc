/**
 * @keyward/ui/bundle — the same as `@keyward/ui`, with Lit inside: one file a page without a
 * build step loads with `<script type="module" src="…/dist/bundle.js">`.
 */
export * from "./index.js";
