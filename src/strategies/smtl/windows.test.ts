import { describe, expect, it } from "vitest";
import { SEED_CONTEXT_TOKENS, windowsFor } from "./windows.ts";

describe("smtl windows", () => {
  it("a 128K model: reset at 128K less the seed's reply reserve twice (112,640), a page window of 115,904 tokens (≈116K) at 60/40", () => {
    expect(windowsFor(SEED_CONTEXT_TOKENS, SEED_CONTEXT_TOKENS)).toEqual({
      searcherWindow: 131_072,
      readerWindow: 131_072,
      contextTokens: 131_072 - 2 * 9_216,
      pageTokens: 115_904,
      headShare: 0.6,
    });
  });

  it("smaller models are scaled down in proportion; larger ones keep the seed's 128K", () => {
    const small = windowsFor(32_768, 16_384);
    expect(small.contextTokens).toBe(16_384);
    // A window too small for the reserve keeps half of itself; a larger one spares the reserve.
    expect(windowsFor(65_536, 65_536).contextTokens).toBe(65_536 - 18_432);
    expect(small.pageTokens).toBe(14_488);
    const large = windowsFor(1_047_576, 200_000);
    expect(large.contextTokens).toBe(112_640);
    expect(large.pageTokens).toBe(115_904);
    expect(windowsFor(128_000, 128_000).pageTokens).toBe(113_187);
  });

  it("an explicit reset budget wins over the window", () => {
    expect(windowsFor(131_072, 131_072, { contextTokens: 64_000 }).contextTokens).toBe(64_000);
  });
});
