/**
 * Options every renderer takes. Reports load nothing remote by default: images in the text
 * become links (`remoteImages: "link"`); `"keep"` keeps them as images, for a viewer the
 * caller trusts to fetch them (the HTML report's policy then allows http(s) images).
 */

import type { RemoteImages } from "../core/markdown-images.ts";

export type { RemoteImages } from "../core/markdown-images.ts";

/** Options of the report renderers. */
export interface RenderOptions {
  /** How images in the report's text are shown: `link` (default) or `keep`. */
  remoteImages?: RemoteImages;
}
