import { describe, expect, it } from "vitest";
import { scriptedRegistry } from "../../../test/scripted/harness.ts";
import { scriptedModel } from "../../../test/scripted/scripted-model.ts";
import { LlmClient } from "../../llm/client.ts";
import { chunkArticle, cleanArticle, proseLength } from "./cleaner.ts";

describe("chunkArticle", () => {
  it("cuts at a paragraph, line or sentence boundary and keeps the whitespace of each cut", () => {
    const article = "Alpha beta.\n\nGamma delta epsilon.\nZeta eta. Theta iota kappa.";
    expect(chunkArticle(article, 30)).toEqual([
      // no boundary in the second half of the first window: the paragraph break before it
      { text: "Alpha beta.", separator: "\n\n" },
      { text: "Gamma delta epsilon.", separator: "\n" },
      { text: "Zeta eta. Theta iota kappa.", separator: "" },
    ]);
  });
  it("cuts after a CJK full stop and hard-cuts text without any boundary", () => {
    expect(chunkArticle("第一句话。第二句话更长一些。", 9)).toEqual([
      { text: "第一句话。", separator: "" },
      { text: "第二句话更长一些。", separator: "" },
    ]);
    expect(chunkArticle("abcdefghij", 4).map((c) => c.text)).toEqual(["abcd", "efgh", "ij"]);
  });
  it("leaves a short article whole", () => {
    expect(chunkArticle("short", 100)).toEqual([{ text: "short", separator: "" }]);
  });
});

describe("proseLength", () => {
  it("ignores reference lines, reference headings and markers", () => {
    expect(proseLength("## References\n1. A. <https://a.example>")).toBe(0);
    expect(proseLength("Prices rose [1, 2].\n[3] https://x.example - X")).toBe("Prices rose .".length);
    expect(proseLength("**Sources:**\n参考文献")).toBe(0);
    // A title inside code is text, not a title.
    expect(proseLength("```\nSources\n```")).toBe("```\nSources\n```".length);
  });
});

describe("cleanArticle", () => {
  const para1 = `Rice prices rose after the drought [1]. ${"Farmers planted less. ".repeat(6)}`.trim();
  const para2 = `Stocks fell to a decade low [2]. ${"Imports grew quickly. ".repeat(6)}`.trim();
  const article = `${para1}\n\n${para2}\n\n## References\n1. A. <https://a.example>\n2. B. <https://b.example>`;

  it("cleans a long article chunk by chunk and joins the chunks with their separators", async () => {
    const model = scriptedModel([
      { match: "<article>\nRice", reply: para1.replace(" [1]", "") },
      { match: "<article>\nStocks", reply: `\`\`\`\n${para2.replace(" [2]", "")}\n\`\`\`` },
      // Only references: an empty answer is a valid cleaning.
      { match: "<article>\n## References", reply: "" },
    ]);
    const llm = new LlmClient({ registry: scriptedRegistry({ default: model }) });
    const result = await cleanArticle(article, { llm, language: "en", chunkChars: 200 });
    expect(result.chunks).toBe(3);
    expect(result.text).toBe(`${para1.replace(" [1]", "")}\n\n${para2.replace(" [2]", "")}`);
    expect(model.calls[0]!.system).toMatch(/remove citation apparatus/);
  });

  it("unwraps a ~~~ fence around the whole answer, not fences inside it", async () => {
    // Two fences of its own, first and last: not one wrapping the whole answer.
    const inner = `\`\`\`\ncode one\n\`\`\`\n\n${para1}\n\n\`\`\`\ncode two\n\`\`\``;
    const model = scriptedModel([`~~~markdown\n${para2}\n~~~`, inner]);
    const llm = new LlmClient({ registry: scriptedRegistry({ default: model }) });
    expect((await cleanArticle(para2, { llm, language: "en" })).text).toBe(para2);
    expect((await cleanArticle(para1, { llm, language: "en" })).text).toBe(inner);
  });

  it("fails after three answers that are too short", async () => {
    const model = scriptedModel(["ok", "ok", "ok"]);
    const llm = new LlmClient({ registry: scriptedRegistry({ default: model }) });
    await expect(cleanArticle("word ".repeat(60), { llm, language: "en" })).rejects.toMatchObject({
      code: "STRUCTURED_OUTPUT_FAILED",
      message:
        "cleaning chunk 1: no valid answer after 3 calls (last answer 2 characters, at least 100 needed)",
    });
  });
});
