import { Marked } from "marked";
import { describe, expect, it } from "vitest";
import { hasImages, imagesAsLinks } from "./markdown-images.ts";
import { isInertMarkdown, safeMarkdown } from "./safe-markdown.ts";

const html = (markdown: string) => new Marked({ gfm: true }).parse(markdown, { async: false }) as string;

describe("imagesAsLinks", () => {
  it.each([
    [
      "inline",
      "See ![chart](https://t.example/px.png?q=secret).",
      "See [image: chart](https://t.example/px.png?q=secret).",
    ],
    [
      "inline with a title",
      '![c](https://t.example/c.png "Chart")',
      '[image: c](https://t.example/c.png "Chart")',
    ],
    ["without alt text", "![](https://t.example/c.png)", "[image](https://t.example/c.png)"],
    [
      "a full reference",
      "![chart][px]\n\n[px]: https://t.example/px.png",
      "[image: chart][px]\n\n[px]: https://t.example/px.png",
    ],
    [
      "a collapsed reference",
      "![px][]\n\n[px]: https://t.example/px.png",
      "[image: px](<https://t.example/px.png>)\n\n[px]: https://t.example/px.png",
    ],
    [
      "a shortcut reference",
      "![px]\n\n[px]: https://t.example/px.png",
      "[image: px](<https://t.example/px.png>)\n\n[px]: https://t.example/px.png",
    ],
  ])("turns %s image into a link to the same URL", (_name, input, expected) => {
    const out = imagesAsLinks(input);
    expect(out).toBe(expected);
    expect(hasImages(out)).toBe(false);
    expect(html(out)).not.toContain("<img");
    expect(html(out)).toContain('href="https://t.example/');
    expect(imagesAsLinks(out)).toBe(out);
  });

  it("an image inside a link (a badge) loads nothing either", () => {
    const out = imagesAsLinks("[![build](https://t.example/badge.svg)](https://ci.example/)");
    expect(hasImages(out)).toBe(false);
    expect(html(out)).not.toContain("<img");
    expect(html(out)).toContain('href="https://t.example/badge.svg"');
  });

  it("leaves image syntax in code spans and fenced code as written", () => {
    const text =
      "Write `![a](https://t.example/a.png)` like this:\n\n```md\n![a](https://t.example/a.png)\n```\n";
    expect(imagesAsLinks(text)).toBe(text);
    const mixed = `${text}\n![a](https://t.example/b.png)\n`;
    expect(imagesAsLinks(mixed)).toBe(`${text}\n[image: a](https://t.example/b.png)\n`);
  });

  it("an image whose source spans quoted lines reads as text, URL included", () => {
    const out = imagesAsLinks("> ![long\n> alt](https://t.example/q.png)\n");
    expect(hasImages(out)).toBe(false);
    expect(html(out)).not.toContain("<img");
    expect(html(out)).toContain("https://t.example/q.png");
  });

  it("after safeMarkdown, hostile image syntax still ends as inert text or links", () => {
    for (const payload of [
      '![x](https://ok.example/a.png "x\\" onerror=\\"alert(1)")',
      "![x](javascript:alert(1))",
      "![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
      "![a ![b](https://t.example/b.png)](https://t.example/a.png)",
      "![x](<https://t.example/a b.png>)",
      "!![x](https://t.example/a.png)",
    ]) {
      const out = imagesAsLinks(safeMarkdown(`Text ${payload} more`));
      expect(hasImages(out), payload).toBe(false);
      expect(isInertMarkdown(out), payload).toBe(true);
      expect(html(out), payload).not.toContain("<img");
    }
  });
});
