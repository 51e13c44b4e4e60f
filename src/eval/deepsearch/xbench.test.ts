import { describe, expect, it } from "vitest";
import { BENCHMARKS_DIR, haveBenchmarkFile } from "../../../test/benchmarks.ts";
import { parseCsv } from "./csv.ts";
import { loadXbench, parseXbenchCsv, xbenchPath, xorDecrypt, xorEncrypt } from "./xbench.ts";

const benchmarks = BENCHMARKS_DIR;
const haveBenchmarks =
  haveBenchmarkFile(xbenchPath(benchmarks, "2505"), "loading the real xbench 2505 questions") &&
  haveBenchmarkFile(xbenchPath(benchmarks, "2510"), "loading the real xbench 2510 questions");

describe("parseCsv", () => {
  it("handles quotes, doubled quotes, embedded newlines, CRLF and a BOM", () => {
    expect(parseCsv('\ufeffa,b,c\r\n"x, y","say ""hi""","line1\nline2"\r\n,,\n')).toEqual([
      ["a", "b", "c"],
      ["x, y", 'say "hi"', "line1\nline2"],
      ["", "", ""],
    ]);
  });
});

describe("xbench decryption", () => {
  it("XORs base64 data with the canary's UTF-8 bytes repeated", () => {
    // "AB" = 0x41 0x42; key "k" = 0x6b: 0x41^0x6b = 0x2a, 0x42^0x6b = 0x29 → base64 of [0x2a, 0x29] = "Kik=".
    expect(xorEncrypt("AB", "k")).toBe("Kik=");
    expect(xorDecrypt("Kik=", "k")).toBe("AB");
    const canary = "BENCHMARK DATA SHOULD NEVER APPEAR AS PLAIN TEXT ONLINE. canary GUID test:1";
    expect(xorDecrypt(xorEncrypt("哪一年？答案：1998", canary), canary)).toBe("哪一年？答案：1998");
  });

  it("decrypts rows of a CSV in the benchmark's layout", () => {
    const canary = "canary-key";
    const csv = [
      "id,prompt,answer,reference_steps,canary",
      `7,${xorEncrypt("Who?", canary)},${xorEncrypt("Ada", canary)},${xorEncrypt("step 1", canary)},${canary}`,
    ].join("\n");
    expect(parseXbenchCsv(csv)).toEqual([
      { id: "7", question: "Who?", answer: "Ada", referenceSteps: "step 1" },
    ]);
    expect(() => parseXbenchCsv("id,prompt,answer,canary\n1,,x,k\n")).toThrow(/row 2/);
  });

  it("reports a missing benchmark folder as NOT_FOUND", () => {
    expect(() => loadXbench("/nonexistent", "2505")).toThrow(/not found/);
  });

  it.skipIf(!haveBenchmarks)("loads both real versions: 100 decrypted Chinese questions each", () => {
    for (const version of ["2505", "2510"] as const) {
      const questions = loadXbench(benchmarks, version);
      expect(questions).toHaveLength(100);
      expect(new Set(questions.map((q) => q.id)).size).toBe(100);
      for (const q of questions) {
        expect(q.question.length).toBeGreaterThan(5);
        expect(q.answer.trim()).not.toBe("");
      }
      expect(questions.filter((q) => /\p{Script=Han}/u.test(q.question)).length).toBeGreaterThan(90);
    }
  });
  if (!haveBenchmarks) it.skip(`real xbench files absent at ${benchmarks}; skipped`, () => {});
});
