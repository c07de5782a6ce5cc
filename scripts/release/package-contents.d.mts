/** Types of package-contents.mjs, for the tests that import it. */
export interface TarballFile {
  /** The path inside the package (`dist/index.js`), without npm's `package/` folder. */
  path: string;
  size: number;
  content: Buffer;
}
export declare const budgets: Record<string, number>;
export declare const defaultBudget: number;
export declare function tarballFiles(bytes: Uint8Array): TarballFile[];
export declare function contentsProblems(
  name: string,
  files: TarballFile[],
): { problems: string[]; unpacked: number; files: number };
