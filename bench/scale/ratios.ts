/**
 * Every figure as a ratio to a baseline measured in the same run: a store at each size against the
 * same store at its smallest size, and (warm verify) against the memory store at the same size.
 * The owner listing's baseline is the smallest size whose owner holds as many keys (at 10^3 keys
 * the owner holds 500, from 10^5 on 10,000), so its ratios compare equal listings.
 */
export interface RatioInput {
  store: string;
  keys: number;
  verifyCold: { p50Ms: number; p99Ms: number };
  verifyWarm: { p50Ms: number; p99Ms: number };
  create: { p50Ms: number };
  listOwner: { keys: number; whole: { p50Ms: number }; firstPage: { p50Ms: number } };
  usageFlush: { incrementsPerSecond: number };
  bytesPerKey: number;
  bytesPerKeyDay: number;
}

const ratio = (value: number, base: number) => Number((value / base).toPrecision(3));

export function ratios(results: readonly RatioInput[]) {
  return results.map((result) => {
    const same = results.filter((other) => other.store === result.store);
    const base = same.reduce((a, b) => (b.keys < a.keys ? b : a));
    const listBase = same
      .filter((other) => other.listOwner.keys === result.listOwner.keys)
      .reduce((a, b) => (b.keys < a.keys ? b : a));
    const memory = results.find((other) => other.store === "memory" && other.keys === result.keys);
    return {
      store: result.store,
      keys: result.keys,
      baseline: `${result.store}, ${base.keys} keys`,
      verifyWarmP50: ratio(result.verifyWarm.p50Ms, base.verifyWarm.p50Ms),
      verifyWarmP99: ratio(result.verifyWarm.p99Ms, base.verifyWarm.p99Ms),
      verifyColdP50: ratio(result.verifyCold.p50Ms, base.verifyCold.p50Ms),
      verifyColdP99: ratio(result.verifyCold.p99Ms, base.verifyCold.p99Ms),
      createP50: ratio(result.create.p50Ms, base.create.p50Ms),
      listBaseline: `${result.store}, ${listBase.keys} keys (owner of ${listBase.listOwner.keys})`,
      listWholeP50: ratio(result.listOwner.whole.p50Ms, listBase.listOwner.whole.p50Ms),
      listFirstPageP50: ratio(result.listOwner.firstPage.p50Ms, listBase.listOwner.firstPage.p50Ms),
      usageFlush: ratio(result.usageFlush.incrementsPerSecond, base.usageFlush.incrementsPerSecond),
      bytesPerKey: ratio(result.bytesPerKey, base.bytesPerKey),
      bytesPerKeyDay: ratio(result.bytesPerKeyDay, base.bytesPerKeyDay),
      verifyWarmP50VsMemory: memory
        ? ratio(result.verifyWarm.p50Ms, memory.verifyWarm.p50Ms)
        : null,
    };
  });
}

/** `node --import tsx scale/ratios.ts results.json`: recomputes a report's ratios in place. */
if (process.argv[1]?.endsWith("ratios.ts") && process.argv[2]) {
  const { readFileSync, writeFileSync } = await import("node:fs");
  const file = process.argv[2];
  const report = JSON.parse(readFileSync(file, "utf8"));
  report.ratios = ratios(report.results);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}
