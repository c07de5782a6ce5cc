/**
 * The progress bar of a long import, drawn on stderr only when it is a terminal: redrawn in place
 * (`\r`), never in a pipe or a log, where it would be noise.
 */
export interface Progress {
  update(done: number, total: number): void;
  /** Ends the bar's line, if one was drawn. */
  done(): void;
}

const width = 30;

export function terminalProgress(write: (text: string) => void): Progress {
  let drawn = false;
  return {
    update(done, total) {
      const filled = total === 0 ? width : Math.round((done / total) * width);
      const bar = `${"#".repeat(filled)}${".".repeat(width - filled)}`;
      write(`\r[${bar}] ${done.toLocaleString("en-US")}/${total.toLocaleString("en-US")} keys`);
      drawn = true;
    },
    done() {
      if (drawn) write("\n");
      drawn = false;
    },
  };
}
