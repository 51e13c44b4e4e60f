import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isDossierError } from "../../core/errors.ts";
import { questionRowsOfJsonl, readRowsFile } from "./rows-file.ts";

const dir = mkdtempSync(join(tmpdir(), "dossier-rows-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function refused(fn: () => unknown, code: string, text: string) {
  try {
    fn();
    expect.unreachable();
  } catch (error) {
    expect(isDossierError(error, code as never)).toBe(true);
    expect((error as Error).message).toContain(text);
  }
}

describe("question rows files", () => {
  it("reads rows JSONL, numbers as ids, extra fields kept, blank lines skipped", () => {
    const rows = questionRowsOfJsonl(
      '{"id": 7, "prompt": "Which city?", "answer": "Paris", "difficulty": "hard"}\n\n{"id": "b", "prompt": "Why?"}\n',
    );
    expect(rows).toEqual([
      { id: "7", prompt: "Which city?", answer: "Paris", difficulty: "hard" },
      { id: "b", prompt: "Why?" },
    ]);
  });

  it("names the line of a bad row, and refuses repeated ids and an empty file", () => {
    refused(
      () => questionRowsOfJsonl('{"id": 1, "prompt": "a"}\n{"id": 2', "q.jsonl"),
      "INPUT_INVALID",
      "q.jsonl:2: not JSON",
    );
    refused(
      () => questionRowsOfJsonl('{"id": 1, "prompt": "a"}\n\n{"id": 2, "answer": "x"}\n', "q.jsonl"),
      "INPUT_INVALID",
      "q.jsonl:3: ",
    );
    refused(
      () => questionRowsOfJsonl('{"id": 1, "prompt": "a"}\n{"id": "1", "prompt": "b"}\n', "q"),
      "INPUT_INVALID",
      "question id 1 appears twice",
    );
    refused(() => questionRowsOfJsonl("\n", "q"), "INPUT_INVALID", "no question rows");
  });

  it("reads a benchmark's own file by its kind; criteria only with DeepResearch Bench", () => {
    const csv = join(dir, "queries.csv");
    writeFileSync(csv, 'query\n"First consulting question"\nSecond one\n');
    expect(readRowsFile(csv, { kind: "deepconsult" }).map((r) => [r.id, r.prompt, r.benchmark])).toEqual([
      ["1", "First consulting question", "deepconsult"],
      ["2", "Second one", "deepconsult"],
    ]);
    refused(
      () => readRowsFile(csv, { kind: "deepconsult", criteria: csv }),
      "INPUT_INVALID",
      "DeepResearch Bench",
    );
    refused(() => readRowsFile(join(dir, "none.jsonl")), "NOT_FOUND", "none.jsonl");
  });
});
