import { describe, expect, it } from "vitest";
import { formatFixed, pyFloat, roundHalfEven } from "./py-numbers.ts";

describe("formatFixed", () => {
  it("rounds exact binary ties to the even digit like Python's format()", () => {
    // 0.03125 = 1/32 is exactly halfway: Python gives 0.0312, toFixed gives 0.0313.
    expect(formatFixed(0.03125, 4)).toBe("0.0312");
    expect(formatFixed(0.09375, 4)).toBe("0.0938");
    expect(formatFixed(-0.03125, 4)).toBe("-0.0312");
    expect(formatFixed(2.5, 0)).toBe("2");
    expect(formatFixed(0.125, 2)).toBe("0.12");
    expect(formatFixed(0.375, 2)).toBe("0.38");
  });
  it("rounds every other value to nearest", () => {
    expect(formatFixed(0.4218415795034234, 4)).toBe("0.4218");
    expect(formatFixed(0.0312500001, 4)).toBe("0.0313");
    // 0.675 is stored just above 0.675, so it is no tie.
    expect(formatFixed(0.675, 2)).toBe("0.68");
    expect(formatFixed(1 / 3, 4)).toBe("0.3333");
  });
  it("roundHalfEven is Python's round(x, n)", () => {
    expect(roundHalfEven(0.125, 2)).toBe(0.12);
    expect(roundHalfEven(0.2649999, 2)).toBe(0.26);
    expect(roundHalfEven(0.335, 2)).toBe(0.34);
  });
});

describe("pyFloat", () => {
  it("converts what Python's float() accepts", () => {
    expect(pyFloat(7)).toBe(7);
    expect(pyFloat(" 7.5 ")).toBe(7.5);
    expect(pyFloat("5.")).toBe(5);
    expect(pyFloat(".5")).toBe(0.5);
    expect(pyFloat("1_0")).toBe(10);
    expect(pyFloat("1e1")).toBe(10);
    expect(pyFloat("-inf")).toBe(-Infinity);
    expect(pyFloat(true)).toBe(1);
  });
  it("keeps null as null and rejects the rest", () => {
    expect(pyFloat(null)).toBeNull();
    expect(pyFloat(undefined)).toBeNull();
    expect(pyFloat("7/10")).toBeUndefined();
    expect(pyFloat("")).toBeUndefined();
    expect(pyFloat({ score: 7 })).toBeUndefined();
    expect(pyFloat([7])).toBeUndefined();
  });
});
