/**
 * The page check of a refresh: a page answering 304, or still holding every cited passage, or
 * (with no cited passage) the same content, is unchanged; one that lost a passage is changed and
 * gives its current passages; a 404, a 410 or a page the source filter refuses is vanished; any
 * other failure is unreachable. A page no search returned before is new when it has passages.
 * Validators are asked with only when known and kept when a 304 does not repeat them.
 */

import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Source } from "../core/source.ts";
import type { FetchPageRequest, PageText } from "../kit/research-tools.ts";
import type { ToolResult } from "../tools/types.ts";
import { checkPage, excerptFound, readNewPage } from "./refresh-pages.ts";

const URL = "https://a.org/report";
const source = (contentHash?: string): Source => ({
  id: "S1",
  kind: "web",
  url: URL,
  title: "Report",
  fetchedAt: "2026-01-01T00:00:00.000Z",
  ...(contentHash ? { contentHash } : {}),
});
const sha = (text: string) => createHash("sha256").update(text).digest("hex");

const P1 = "Panel prices fell 20 percent in 2025 across every surveyed market.";
const P2 = "Installations doubled in the second half of the year, the survey says.";
const PAGE_TEXT = `# Solar\n\n${P1}\n\n${P2}\n`;

/** A fetcher answering `answer` for every URL, recording what it was asked. */
function fetcher(answer: (url: string) => ToolResult<PageText>) {
  const asked: { url: string; request: FetchPageRequest | undefined }[] = [];
  return {
    asked,
    tools: {
      fetchPage: async (url: string, request?: FetchPageRequest) => {
        asked.push({ url, request });
        return answer(url);
      },
    },
  };
}
const page = (text: string, extra: Partial<PageText> = {}): ToolResult<PageText> => ({
  ok: true,
  value: { url: URL, finalUrl: URL, title: "Solar now", text, ...extra },
  cached: false,
  provider: "web",
  callId: "C9",
  latencyMs: 0,
});
const failure = (code: string, message: string): ToolResult<PageText> => ({
  ok: false,
  error: { code, message, retryable: false },
  provider: "web",
  callId: "C8",
  latencyMs: 0,
});

describe("checkPage", () => {
  it("calls a page still holding every cited passage unchanged, and one that lost a passage changed", async () => {
    const { tools } = fetcher(() => page(PAGE_TEXT, { etag: '"v2"' }));
    const unchanged = await checkPage(tools, source(), [{ text: P1 }, { text: `…${P2.slice(5, 50)}…` }], {});
    expect(unchanged).toEqual({
      url: URL,
      state: "unchanged",
      passages: [],
      callId: "C9",
      validators: { etag: '"v2"' },
      contentHash: sha(PAGE_TEXT),
      title: "Solar now",
    });
    const changed = await checkPage(
      tools,
      source(),
      [{ text: P1 }, { text: "Panel prices fell 25 percent." }],
      {},
    );
    expect(changed).toEqual({
      url: URL,
      state: "changed",
      passages: [P1, P2],
      callId: "C9",
      validators: { etag: '"v2"' },
      contentHash: sha(PAGE_TEXT),
      title: "Solar now",
    });
  });

  it("with no cited passage, compares the content hash: same or unknown is unchanged, another is changed", async () => {
    const { tools } = fetcher(() => page(PAGE_TEXT));
    expect((await checkPage(tools, source(), [], undefined)).state).toBe("unchanged");
    expect((await checkPage(tools, source(sha(PAGE_TEXT)), [], undefined)).state).toBe("unchanged");
    const other = await checkPage(tools, source(sha("an earlier text")), [], undefined);
    expect(other.state).toBe("changed");
    expect(other.passages).toEqual([P1, P2]);
    // Cited passages decide over the hash: a page still holding them is unchanged though its bytes moved.
    expect((await checkPage(tools, source(sha("an earlier text")), [{ text: P2 }], undefined)).state).toBe(
      "unchanged",
    );
  });

  it("asks conditionally only with known validators, and a 304 is unchanged keeping the validators sent", async () => {
    const { tools, asked } = fetcher(() => page("", { notModified: true }));
    const checked = await checkPage(tools, source(), [{ text: "Lost passage, but never read." }], {
      etag: '"v1"',
      lastModified: "Mon, 05 Jan 2026 00:00:00 GMT",
    });
    expect(checked).toEqual({
      url: URL,
      state: "unchanged",
      passages: [],
      callId: "C9",
      validators: { etag: '"v1"', lastModified: "Mon, 05 Jan 2026 00:00:00 GMT" },
    });
    await checkPage(tools, source(), [], { lastModified: "Mon, 05 Jan 2026 00:00:00 GMT" });
    await checkPage(tools, source(), [], {});
    await checkPage(tools, source(), [], undefined);
    expect(asked).toEqual([
      {
        url: URL,
        request: {
          fresh: true,
          conditional: { etag: '"v1"', lastModified: "Mon, 05 Jan 2026 00:00:00 GMT" },
        },
      },
      { url: URL, request: { fresh: true, conditional: { lastModified: "Mon, 05 Jan 2026 00:00:00 GMT" } } },
      { url: URL, request: { fresh: true } },
      { url: URL, request: { fresh: true } },
    ]);
  });

  it("keeps the page's own validators over the ones sent, and none it did not get", async () => {
    const { tools } = fetcher(() => page("", { notModified: true, etag: '"v3"' }));
    const checked = await checkPage(tools, source(), [], { etag: '"v1"', lastModified: "Sun, 04 Jan 2026" });
    expect(checked.validators).toEqual({ etag: '"v3"', lastModified: "Sun, 04 Jan 2026" });
    const plain = fetcher(() => page(PAGE_TEXT, { lastModified: "Tue, 06 Jan 2026" }));
    expect((await checkPage(plain.tools, source(), [], {})).validators).toEqual({
      lastModified: "Tue, 06 Jan 2026",
    });
    const bare = fetcher(() => page(PAGE_TEXT));
    expect((await checkPage(bare.tools, source(), [], undefined)).validators).toEqual({});
  });

  it("calls a 404, a 410 and a refused page vanished, any other failure unreachable", async () => {
    const stateOf = async (code: string, message: string) => {
      const checked = await checkPage(
        fetcher(() => failure(code, message)).tools,
        source(),
        [{ text: P1 }],
        {},
      );
      expect(checked).toMatchObject({ url: URL, passages: [], callId: "C8", validators: {} });
      return checked.state;
    };
    expect(await stateOf("PROVIDER_ERROR", `fetch ${URL}: HTTP 404`)).toBe("vanished");
    expect(await stateOf("PROVIDER_ERROR", `fetch ${URL}: HTTP 410`)).toBe("vanished");
    expect(await stateOf("SOURCE_FILTERED", `${URL} is excluded by the run's source filter`)).toBe(
      "vanished",
    );
    expect(await stateOf("PROVIDER_ERROR", `fetch ${URL}: HTTP 500`)).toBe("unreachable");
    expect(await stateOf("PROVIDER_ERROR", `fetch ${URL}: HTTP 403`)).toBe("unreachable");
    // A status named elsewhere than at the end is not the answer's status.
    expect(await stateOf("PROVIDER_ERROR", `fetch ${URL}: HTTP 404 page then HTTP 503`)).toBe("unreachable");
    expect(await stateOf("TIMEOUT", `fetch ${URL}: HTTP 404`)).toBe("unreachable");
  });

  it("is unreachable without a page fetcher, its evidence kept", async () => {
    expect(await checkPage({}, source(), [{ text: P1 }], { etag: '"v1"' })).toEqual({
      url: URL,
      state: "unreachable",
      passages: [],
      callId: "",
      validators: {},
    });
  });
});

describe("readNewPage", () => {
  it("reads a page past the cache, unconditionally, and calls it new with its passages", async () => {
    const { tools, asked } = fetcher(() => page(PAGE_TEXT, { etag: '"n1"' }));
    expect(await readNewPage(tools, URL)).toEqual({
      url: URL,
      state: "new",
      passages: [P1, P2],
      callId: "C9",
      title: "Solar now",
      contentHash: sha(PAGE_TEXT),
      validators: { etag: '"n1"' },
    });
    expect(asked).toEqual([{ url: URL, request: { fresh: true } }]);
  });

  it("calls a page without a passage, a failed fetch or no fetcher unreachable", async () => {
    const empty = await readNewPage(fetcher(() => page("# Only a heading\n\nshort line")).tools, URL);
    expect(empty).toMatchObject({ state: "unreachable", passages: [] });
    expect(await readNewPage(fetcher(() => failure("PROVIDER_ERROR", "HTTP 404")).tools, URL)).toEqual({
      url: URL,
      state: "unreachable",
      passages: [],
      callId: "C8",
      validators: {},
    });
    expect(await readNewPage({}, URL)).toEqual({
      url: URL,
      state: "unreachable",
      passages: [],
      callId: "",
      validators: {},
    });
  });
});

describe("excerptFound", () => {
  it("looks for a passage read from the page in the page only", () => {
    expect(excerptFound({ text: P1 }, PAGE_TEXT)).toBe(true);
    expect(excerptFound({ text: "Panel prices fell 25 percent in 2025." }, PAGE_TEXT)).toBe(false);
    expect(excerptFound({ text: P1, snippets: [] }, "Nothing of the sort.")).toBe(false);
    expect(excerptFound({ text: P1, snippets: ["Other words.", P1] }, "Nothing of the sort.")).toBe(true);
  });
});
