/**
 * The language of a report, for the `lang` attribute of the fragment that shows it: the
 * report page's `<html lang>`, or the JSON bundle's `language`, kept only when it is a
 * well-formed language tag (like `fr` or `zh-CN`).
 */

const TAG = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/;

/** `code` when it is a well-formed language tag, else null. */
export function languageTag(code: unknown): string | null {
  return typeof code === "string" && TAG.test(code) ? code : null;
}

/** The `lang` of a report page's `<html>` element, when well formed. */
export function reportPageLanguage(html: string): string | null {
  const open = /<html\b[^>]*>/i.exec(html)?.[0] ?? "";
  return languageTag(
    /\blang\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i
      .exec(open)
      ?.slice(1)
      .find((v) => v !== undefined),
  );
}
