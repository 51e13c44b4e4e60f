import { JSDOM } from "jsdom";
import { describe, expect, it } from "vitest";
import { cleanArticle } from "./content-cleanup.ts";

function cleaned(html: string): string {
  const dom = new JSDOM(`<!doctype html><body><div id="root">${html}</div></body>`);
  const root = dom.window.document.getElementById("root")!;
  cleanArticle(root);
  const text = [...root.querySelectorAll("p, li, h2, td, pre")]
    .map((e) => e.textContent?.replace(/\s+/g, " ").trim())
    .join(" / ");
  dom.window.close();
  return text;
}

describe("cleanArticle", () => {
  it("drops image figures, captions and photo credits, keeps figures of tables and code", () => {
    expect(
      cleaned(`<p>Body text of the story.</p>
        <figure><img src="a.png"><figcaption><p>A hunter in Beijing. Credit: EPA</p></figcaption></figure>
        <figure><table><tr><td>1</td><td>2</td></tr></table><figcaption>Table 1</figcaption></figure>
        <p>Photo: David Zalubowski, AP</p><p>(Image: GETTY)</p><p>© Aaron Schwartz</p>`),
    ).toBe("Body text of the story. / 1 / 2");
  });

  it("drops blocks named for sharing, related stories, newsletters and bylines", () => {
    expect(
      cleaned(`<p>Body.</p><div class="share-bar"><p>Whatsapp Facebook</p></div>
        <div class="related-stories"><p>Another story entirely</p></div>
        <div id="newsletter-signup"><p>Sign up now</p></div><p class="byline">By Someone</p>
        <div class="article-body"><p>More body.</p></div>`),
    ).toBe("Body. / More body.");
  });

  it("drops lists and short blocks made of links, keeps prose with a few links", () => {
    expect(
      cleaned(`<p>The river <a href="/r">rose</a> by a metre overnight, flooding the lower town.</p>
        <ul><li><a href="/1">Who will make the Rock Hall in 2020?</a></li><li><a href="/2">Fans want it</a></li></ul>
        <p><a href="/3">SEE MORE: Hong Kong protests</a></p>
        <ul><li>First point of the article.</li><li>Second point.</li></ul>`),
    ).toBe(
      "The river rose by a metre overnight, flooding the lower town. / First point of the article. / Second point.",
    );
  });

  it("drops short repeated blocks, bylines and date lines, keeps sentences that merely start alike", () => {
    expect(
      cleaned(`<p>Share Tweet Pin</p><p>First paragraph.</p><p>Share Tweet Pin</p><div><p>Share Tweet Pin</p></div>
        <p>By Justine Coleman - 11/18/19 11:04 PM EST</p><p>Updated Nov 19, 6:55 AM; Posted Nov 19, 6:51 AM</p>
        <p>By the end of 2019 sales had fallen 10 percent.</p><p>Published figures show a rise.</p>`),
    ).toBe(
      "First paragraph. / By the end of 2019 sales had fallen 10 percent. / Published figures show a rise.",
    );
  });

  it("keeps short blocks seen twice and list items, drops a second copy of a long block", () => {
    const long =
      "A long paragraph that a page repeats, for instance once as a teaser near the top and once more in the body of the article itself.";
    expect(
      cleaned(`<p>${long}</p><p>3 years, 3 years</p><p>3 years, 3 years</p>
        <ul><li>GPS</li><li>GPS</li><li>GPS</li></ul><p>${long}</p>`),
    ).toBe(`${long} / 3 years, 3 years / 3 years, 3 years / GPS / GPS / GPS`);
  });
});
