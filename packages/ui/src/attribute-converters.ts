/** How the element's list attributes read: `tiers="free, pro"`, `grace-periods="3600, 86400"`. */

/** `grace-periods="3600, 86400"` → `[3600, 86400]`: whole positive seconds; anything else is dropped. */
export const secondsListAttribute = {
  fromAttribute: (value: string | null) =>
    (value ?? "")
      .split(",")
      .map((item) => item.trim())
      .filter((item) => /^\d+$/.test(item) && Number(item) > 0)
      .map(Number),
  toAttribute: (value: number[]) => value.join(","),
};

/** A comma-separated attribute as a list: `tiers="free, pro"` → `["free", "pro"]`. */
export const listAttribute = {
  fromAttribute: (value: string | null) =>
    (value ?? "")
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean),
  toAttribute: (value: string[]) => value.join(","),
};
