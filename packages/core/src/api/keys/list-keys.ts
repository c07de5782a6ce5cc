/** An owner's keys, newest first: all of them, or a page at a time. */

import { isKeyId } from "../../keys/key-id.js";
import type { Owner } from "../../keys/owner.js";
import type { KeyPage, ListPageOptions } from "../key-api-types.js";
import type { KeyRecord } from "../key-record.js";
import { decodeListCursor, encodeListCursor, parsePageSize } from "../list-cursor.js";
import type { KeyOperations } from "./key-operations.js";

export interface ListKeys {
  (owner: Owner): Promise<KeyRecord[]>;
  page(owner: Owner, options: ListPageOptions): Promise<KeyPage>;
}

export function listKeysOperation(ops: KeyOperations): ListKeys {
  const { ctx } = ops;
  const list = async (owner: Owner) => ops.records.many(await ctx.keys.listByOwner(owner));
  return Object.assign(list, {
    async page(owner: Owner, options: ListPageOptions): Promise<KeyPage> {
      const limit = parsePageSize(options.limit);
      const after =
        options.cursor === undefined || options.cursor === null
          ? undefined
          : decodeListCursor(options.cursor, isKeyId);
      // One more than the page: whether it exists says if there is a next page, without a count.
      const keys = await ctx.keys.listByOwner(owner, {
        limit: limit + 1,
        ...(after ? { after } : {}),
      });
      const page = keys.slice(0, limit);
      const last = page.at(-1);
      return {
        data: await ops.records.many(page),
        nextCursor: keys.length > limit && last ? encodeListCursor(last) : null,
      };
    },
  });
}
