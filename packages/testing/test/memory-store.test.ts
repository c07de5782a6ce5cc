import { memoryStore } from "@keyward/core";
import { describeStorageConformance } from "../src/index.js";

describeStorageConformance("memoryStore", {
  createStore: () => memoryStore(),
  probe: {
    dump: async (store) => store.snapshot(),
    rawKey: async (store, id) => {
      const key = store.snapshot().keys.find((candidate) => candidate.id === id);
      return key ? { ...key } : null;
    },
  },
});
