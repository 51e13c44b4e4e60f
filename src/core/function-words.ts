/**
 * Common function words of the Latin-script languages whose trigram verdicts are checked
 * (see `language.ts`): a short text is taken to be in one of these languages only when it
 * holds at least one of its function words. Short English-looking questions full of technical
 * terms otherwise fall to whichever trigram model the terms happen to resemble.
 */

const WORDS: Record<string, string> = {
  de: "der die das und ist nicht zu den von mit sich des auf für im dem ein eine einer auch es an als wird werden sind bei oder aus nach wie zum zur über durch was wer warum welche welcher",
  fr: "le la les et des est une un du de que dans pour qui pas sur au par plus avec ce sont il elle ont aux cette mais ou leur été être nous quels quelles quel quelle comment pourquoi",
  es: "el la los las y de que en un una es por con para del se no su al lo como más pero sus le ya o este son fue ha está muy también entre qué cuál cómo quién",
  pt: "o a os as e de que em um uma é do da dos das para com não se no na por mais ao pelo pela são foi ser também está seu sua entre qual quem",
  it: "il la le lo gli e di che in un una è per con non si del della dei delle al alla sono più come anche ma nel nella ha questo questa quali chi perché",
  nl: "de het een en van in is dat op te zijn voor met die niet aan er ook als bij door maar om dan naar heeft worden wordt deze wat hoe waarom",
};

/** Function words by ISO 639-1 code. */
export const FUNCTION_WORDS: Readonly<Record<string, ReadonlySet<string>>> = Object.fromEntries(
  Object.entries(WORDS).map(([code, list]) => [code, new Set(list.split(" "))]),
);

/** How many words of `words` (lower case) are function words of `language`. */
export function functionWordHits(words: readonly string[], language: string): number {
  const set = FUNCTION_WORDS[language];
  return set ? words.filter((w) => set.has(w)).length : 0;
}
