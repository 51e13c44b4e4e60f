/**
 * Public surface of the fake web test kit: an in-process page server and its fixtures.
 */

export { encodeLegacy } from "./legacy-encoding.ts";
export {
  articleHtml,
  cp1252Html,
  EMPTY_HTML,
  FAKE_WEB_TEXT,
  NOT_FOUND_HTML,
  PNG_BYTES,
  sjisHtml,
} from "./pages.ts";
export { CORRUPT_PDF, makeScannedPdf, makeTextPdf } from "./pdf-fixtures.ts";
export {
  type FakeWeb,
  type FakeWebHandler,
  type FakeWebOptions,
  type FakeWebRequest,
  HUGE_BODY_BYTES,
  startFakeWeb,
} from "./server.ts";
