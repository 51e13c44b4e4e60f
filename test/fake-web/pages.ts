/**
 * The pages the fake web serves, and the phrases tests look for in them.
 */

/** Phrases of the fixture pages that tests assert on. */
export const FAKE_WEB_TEXT = {
  articleTitle: "Tidal Power in the Bay of Fundy",
  /** A sentence of the article body (kept by extraction). */
  articleSentence:
    "The pilot turbine delivered 1.2 gigawatt-hours to the grid in its first full year of operation.",
  /** A second body sentence, later in the article. */
  articleLateSentence:
    "Engineers expect the second array to be commissioned in 2028, pending the environmental review.",
  /** Boilerplate in the navigation, sidebar and footer (dropped by extraction). */
  boilerplate: [
    "Subscribe to our newsletter",
    "Trending now",
    "Copyright 2026 Harbour Media Group",
    "Home | World | Energy",
  ],
  /** The relative link of the article, resolved against the page URL. */
  articleLinkPath: "/sources/fundy-report-2025",
  cp1252Title: "Café « crème » à 3 € — déjà “cher”",
  cp1252Sentence: "Le garçon a apporté un café crème très chaud à l’hôtel.",
  sjisTitle: "東京の天気予報",
  sjisSentence: "明日の東京は晴れのち曇り、最高気温は二十五度の予想です。",
  plainText: "Plain text notes.\nLine two of the notes, with    spacing kept.\n",
  markdown: "# Field Notes\n\nSome *markdown* notes with a [link](https://example.org/).\n",
  pdfTitle: "Quarterly Tide Report",
  pdfPages: [
    "Quarterly Tide Report\nPage one covers the spring tides of March.",
    "Page two lists the neap tides of April.",
    "Page three concludes with turbine output figures.",
  ],
} as const;

const paragraphs = [
  "The Bay of Fundy has the highest tides in the world, with a range of up to sixteen metres between low and high water. For decades, engineers have tried to turn that daily movement of water into a reliable source of electricity for the provinces around the bay.",
  `${FAKE_WEB_TEXT.articleSentence} That figure is modest compared with a conventional power station, but it is predictable months in advance, which grid operators value more than raw capacity.`,
  "Fishing communities along the shore have raised concerns about the effect of turbines on migrating fish. Independent monitoring during the pilot found no measurable increase in fish mortality near the turbine, although researchers cautioned that the sample period was short.",
  `${FAKE_WEB_TEXT.articleLateSentence} If approved, the array would supply enough electricity for about twenty thousand homes.`,
];

/** An article page with navigation, a sidebar and a footer around the main content. */
export function articleHtml(): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${FAKE_WEB_TEXT.articleTitle} | Harbour Media</title>
  <style>body { font-family: serif; }</style>
  <script>window.tracking = "should never run";</script>
</head>
<body>
  <header class="site-header">
    <div class="logo">Harbour Media</div>
    <nav class="main-nav"><a href="/">Home</a> | <a href="/world">World</a> | <a href="/energy">Energy</a>
      <span>Home | World | Energy</span></nav>
    <div class="promo">Subscribe to our newsletter for daily energy news.</div>
  </header>
  <main>
    <article>
      <h1>${FAKE_WEB_TEXT.articleTitle}</h1>
      <p class="byline">By Morgan Lee</p>
      ${paragraphs.map((p) => `<p>${p}</p>`).join("\n      ")}
      <h2>Output by year</h2>
      <table>
        <thead><tr><th>Year</th><th>Output (GWh)</th></tr></thead>
        <tbody><tr><td>2024</td><td>1.2</td></tr><tr><td>2025</td><td>1.4</td></tr></tbody>
      </table>
      <p>The full figures are in the <a href="${FAKE_WEB_TEXT.articleLinkPath}">2025 project report</a>.</p>
    </article>
  </main>
  <aside class="sidebar"><h3>Trending now</h3><ul><li><a href="/a">Ferry schedules change</a></li><li><a href="/b">Lobster prices fall</a></li></ul></aside>
  <footer class="site-footer"><p>Copyright 2026 Harbour Media Group. All rights reserved.</p><p><a href="/privacy">Privacy</a> | <a href="/terms">Terms</a></p></footer>
</body>
</html>
`;
}

/** A French page meant to be encoded in windows-1252; `declareInMeta` adds a meta charset. */
export function cp1252Html(declareInMeta: boolean): string {
  return `<html><head>${declareInMeta ? '<meta charset="windows-1252">' : ""}<title>${FAKE_WEB_TEXT.cp1252Title}</title></head>
<body><article><h1>${FAKE_WEB_TEXT.cp1252Title}</h1>
<p>${FAKE_WEB_TEXT.cp1252Sentence} Il coûte trois euros, ce qui est « raisonnable » pour un établissement de ce genre.</p>
<p>Où est la bibliothèque ? Ça dépend : la façade est en rénovation depuis l’été, et l’entrée se fait par la rue Noël.</p>
<p>Les clients réguliers préfèrent la terrasse, même en hiver, parce que la vue sur le port y est magnifique.</p>
</article></body></html>`;
}

/** A Japanese page meant to be encoded in shift_jis; `declareInMeta` adds an http-equiv. */
export function sjisHtml(declareInMeta: boolean): string {
  const meta = declareInMeta ? '<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">' : "";
  return `<html><head>${meta}<title>${FAKE_WEB_TEXT.sjisTitle}</title></head>
<body><article><h1>${FAKE_WEB_TEXT.sjisTitle}</h1>
<p>${FAKE_WEB_TEXT.sjisSentence}</p>
<p>週末は全国的に雨が降りやすく、特に西日本では雷を伴った強い雨に注意が必要です。</p>
<p>桜の開花は平年より一週間ほど早く、来週には見ごろを迎える見込みです。</p>
</article></body></html>`;
}

/** A small HTML page with no content. */
export const EMPTY_HTML = "<!DOCTYPE html><html><head><title></title></head><body></body></html>";

/** The body of the 404 page. */
export const NOT_FOUND_HTML =
  "<!DOCTYPE html><html><body><h1>Not Found</h1><p>No such page.</p></body></html>";

/** The first bytes of a PNG image. */
export const PNG_BYTES: Uint8Array = new Uint8Array([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0,
  1,
]);
