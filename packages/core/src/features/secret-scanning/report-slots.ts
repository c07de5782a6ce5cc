/**
 * How many secret-scanning reports may be read at once. The endpoint takes requests from anyone
 * (the signature is only checked once the body is in), so each body being read is memory an
 * anonymous client holds: up to `maxBodyBytes` each, for as long as it trickles the bytes in. A
 * fixed number of slots bounds that to `slots × maxBodyBytes` however many sockets are open; a
 * report that finds none free is refused at once (503, `Retry-After`), and the scanner retries.
 */
export interface ReportSlots {
  /** A slot, or `undefined` when all are taken. Call the returned function once, when done. */
  take(): (() => void) | undefined;
  /** Slots in use now. */
  readonly inUse: number;
}

export function reportSlots(max: number): ReportSlots {
  let inUse = 0;
  return {
    take() {
      if (inUse >= max) return undefined;
      inUse++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        inUse--;
      };
    },
    get inUse() {
      return inUse;
    },
  };
}
