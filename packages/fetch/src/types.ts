// Core's own types, re-exported so a host imports them from the adapter it uses.
export type { Principal, VerifyResult } from "@keyward/core";
