/**
 * A well-formed language tag for markup (an HTML `lang` attribute), without loading the
 * language detector.
 */

/**
 * `code` when it is a well-formed BCP 47 language tag (like `en`, `zh-CN`, `pt-BR`), else
 * undefined: for an HTML `lang` attribute, which must not carry arbitrary text.
 */
export function languageTag(code: string | undefined): string | undefined {
  return code && /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/.test(code) ? code : undefined;
}
