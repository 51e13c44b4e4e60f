import { describe, expect, it } from "vitest";
import { assertSupportedNode, supportedNode } from "./node-support.ts";

describe("supported Node versions", () => {
  it("22.13 and later 22.x, and 24 and later; not 20, 22.12 or 23", () => {
    expect(["22.13.0", "22.20.1", "24.0.0", "26.1.0"].map(supportedNode)).toEqual([true, true, true, true]);
    expect(["20.20.2", "22.12.0", "23.11.0", "18.0.0"].map(supportedNode)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });

  it("refuses an unsupported Node with the command's words", () => {
    expect(() => assertSupportedNode("20.20.2")).toThrow(
      "Node 20.20.2 is not supported; Dossier needs Node 22.13 or later 22.x, or Node 24 or later",
    );
    expect(() => assertSupportedNode("24.1.0")).not.toThrow();
  });
});
