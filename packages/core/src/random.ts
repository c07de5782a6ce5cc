/**
 * Randomness, injected, in oslo's `RandomReader` shape: fill the array with bytes.
 * The default is the platform CSPRNG (`crypto.getRandomValues`), present on Node, Deno, Bun and
 * Workers. Tests inject a deterministic source.
 */
export interface RandomSource {
  read(bytes: Uint8Array): void;
}

export const cryptoRandom: RandomSource = {
  read: (bytes) => {
    crypto.getRandomValues(bytes);
  },
};
