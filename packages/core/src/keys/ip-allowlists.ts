/** The most entries one key's IP allowlist may have. */
export const maxAllowlistEntries = 100;
