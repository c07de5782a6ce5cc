/** Registers `<keyward-keys>` once: a second copy of the package on the page does not throw. */
import { KeywardKeys } from "./keyward-keys.js";

export const tagName = "keyward-keys";

if (typeof customElements !== "undefined" && !customElements.get(tagName)) {
  customElements.define(tagName, KeywardKeys);
}
