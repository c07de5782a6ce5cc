/**
 * The frames a V8 CPU profile (`node --cpu-prof`) spent the most time in: self time (the function's
 * own code) and total time (with what it called), by function and file, as a table. How the
 * guard's cost was found: profile a server under load, read the frames that Keyward's code adds.
 *
 * @example
 * HTTP_BENCH_PROFILE_DIR=/tmp/prof HTTP_BENCH_TARGETS=fastify HTTP_BENCH_VARIANTS=bare,guard \
 *   HTTP_BENCH_ROUNDS=1 npx pnpm@10 bench:http
 * node --import tsx http/top-frames.ts /tmp/prof/fastify-guard-1.cpuprofile [how many, default 30] [filter]
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, howMany = "30", filter] = process.argv.slice(2);
if (!file) throw new Error("usage: top-frames.ts <file.cpuprofile> [how many] [url filter]");
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes)
  for (const child of node.children ?? []) parent.set(child, node.id);

const selfTime = new Map<number, number>();
profile.samples.forEach((id, index) => {
  selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
});
const total = [...selfTime.values()].reduce((sum, value) => sum + value, 0);

const label = (node: ProfileNode) => {
  const { functionName, url, lineNumber, columnNumber } = node.callFrame;
  const where = url
    ? `${url.replace(/^.*\/(node_modules|packages)\//, "$1/")}:${lineNumber + 1}:${columnNumber + 1}`
    : "";
  return `${functionName || "(anonymous)"} ${where}`.trim();
};

const selfByLabel = new Map<string, number>();
const totalByLabel = new Map<string, number>();
for (const [id, time] of selfTime) {
  const node = byId.get(id)!;
  selfByLabel.set(label(node), (selfByLabel.get(label(node)) ?? 0) + time);
  // Total time: every distinct frame on the sample's stack, once each (recursion counted once).
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const name = label(byId.get(at)!);
    if (seen.has(name)) continue;
    seen.add(name);
    totalByLabel.set(name, (totalByLabel.get(name) ?? 0) + time);
  }
}

const percent = (time: number) => `${((100 * time) / total).toFixed(1)}%`;
const print = (title: string, table: Map<string, number>) => {
  console.log(`\n${title}`);
  [...table]
    .filter(([name]) => !filter || name.includes(filter))
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(howMany))
    .forEach(([name, time]) => {
      console.log(`${percent(time).padStart(6)}  ${name}`);
    });
};
console.log(`${file}: ${(total / 1e6).toFixed(2)} s sampled`);
print("self time", selfByLabel);
print("total time", totalByLabel);
