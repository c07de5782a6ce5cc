import type { InstanceDescription } from "../../feature-interface/openapi-contribution.js";
import type { OpenApiOptions } from "./options.js";

/** What the document is built from: the instance as the kernel describes it, and the options. */
export interface OpenApiBuildContext extends InstanceDescription {
  options: OpenApiOptions;
}
