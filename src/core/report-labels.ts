/**
 * Every fixed label a report shows its reader — in Markdown, HTML, PDF, DOCX and the JSON
 * bundle — from one table per language: the languages `language: auto` tells apart and those a
 * user commonly asks for. A language without a table reads English.
 */

/** The labels of one language. */
export interface ReportLabels {
  references: string;
  conclusion: string;
  overview: string;
  noMatches: string;
  researchQuestion: string;
  run: string;
  sources(n: number): string;
  accessed(date: string): string;
  localDocument: string;
  claimCheck: string;
  noClaims: string;
  lexicalCheck: string;
  judgeModel: string;
  citedClaims(n: number): string;
  supported: string;
  partial: string;
  unsupported: string;
  unchecked: string;
  revised(n: number): string;
  dropped(n: number): string;
  /** Punctuation between list items and at the end of the claim line. */
  comma: string;
  semicolon: string;
  stop: string;
}

const EN: ReportLabels = {
  references: "References",
  conclusion: "Conclusion",
  overview: "Overview",
  noMatches: "No passage of your documents matches the question.",
  researchQuestion: "Research question",
  run: "Run",
  sources: (n) => `${n} sources`,
  accessed: (d) => `accessed ${d}`,
  localDocument: "local document",
  claimCheck: "Claim check",
  noClaims: "no cited claims to check",
  lexicalCheck: "lexical check",
  judgeModel: "judge model",
  citedClaims: (n) => `${n} cited claims`,
  supported: "supported",
  partial: "partially supported",
  unsupported: "unsupported",
  unchecked: "unchecked",
  revised: (n) => `${n} revised`,
  dropped: (n) => `${n} dropped`,
  comma: ", ",
  semicolon: "; ",
  stop: ".",
};

const CJK = { comma: "，", semicolon: "；", stop: "。" };

const TABLES: Record<string, ReportLabels> = {
  en: EN,
  zh: {
    references: "参考文献",
    conclusion: "结论",
    overview: "概述",
    noMatches: "在您的文档中没有找到与该问题相关的段落。",
    researchQuestion: "研究问题",
    run: "运行",
    sources: (n) => `${n} 个来源`,
    accessed: (d) => `访问于 ${d}`,
    localDocument: "本地文档",
    claimCheck: "论断核查",
    noClaims: "没有需要核查的引用论断",
    lexicalCheck: "词汇比对",
    judgeModel: "评审模型",
    citedClaims: (n) => `共 ${n} 条引用论断`,
    supported: "有依据",
    partial: "部分有依据",
    unsupported: "无依据",
    unchecked: "未核查",
    revised: (n) => `${n} 条已修改`,
    dropped: (n) => `${n} 条已删除`,
    ...CJK,
  },
  ja: {
    references: "参考文献",
    conclusion: "結論",
    overview: "概要",
    noMatches: "お手持ちの文書に、この質問に合う箇所は見つかりませんでした。",
    researchQuestion: "調査課題",
    run: "実行",
    sources: (n) => `出典 ${n} 件`,
    accessed: (d) => `${d} 閲覧`,
    localDocument: "ローカル文書",
    claimCheck: "主張の検証",
    noClaims: "検証する引用付きの主張はありません",
    lexicalCheck: "語彙照合",
    judgeModel: "判定モデル",
    citedClaims: (n) => `引用付きの主張 ${n} 件`,
    supported: "裏付けあり",
    partial: "一部裏付けあり",
    unsupported: "裏付けなし",
    unchecked: "未検証",
    revised: (n) => `${n} 件修正`,
    dropped: (n) => `${n} 件削除`,
    comma: "、",
    semicolon: "；",
    stop: "。",
  },
  ko: {
    references: "참고 문헌",
    conclusion: "결론",
    overview: "개요",
    noMatches: "문서에서 질문과 일치하는 구절을 찾지 못했습니다.",
    researchQuestion: "연구 질문",
    run: "실행",
    sources: (n) => `출처 ${n}개`,
    accessed: (d) => `${d} 접속`,
    localDocument: "로컬 문서",
    claimCheck: "주장 검증",
    noClaims: "검증할 인용 주장이 없습니다",
    lexicalCheck: "어휘 대조",
    judgeModel: "판정 모델",
    citedClaims: (n) => `인용 주장 ${n}개`,
    supported: "근거 있음",
    partial: "부분적 근거",
    unsupported: "근거 없음",
    unchecked: "미검증",
    revised: (n) => `${n}개 수정`,
    dropped: (n) => `${n}개 삭제`,
    comma: ", ",
    semicolon: "; ",
    stop: ".",
  },
  de: {
    ...EN,
    references: "Quellen",
    conclusion: "Fazit",
    overview: "Überblick",
    noMatches: "Keine Passage Ihrer Dokumente passt zur Frage.",
    researchQuestion: "Forschungsfrage",
    run: "Lauf",
    sources: (n) => `${n} Quellen`,
    accessed: (d) => `abgerufen am ${d}`,
    localDocument: "lokales Dokument",
    claimCheck: "Aussagenprüfung",
    noClaims: "keine belegten Aussagen zu prüfen",
    lexicalCheck: "lexikalischer Abgleich",
    judgeModel: "Bewertungsmodell",
    citedClaims: (n) => `${n} belegte Aussagen`,
    supported: "gestützt",
    partial: "teilweise gestützt",
    unsupported: "nicht gestützt",
    unchecked: "ungeprüft",
    revised: (n) => `${n} überarbeitet`,
    dropped: (n) => `${n} entfernt`,
  },
  fr: {
    ...EN,
    references: "Références",
    conclusion: "Conclusion",
    overview: "Vue d'ensemble",
    noMatches: "Aucun passage de vos documents ne répond à la question.",
    researchQuestion: "Question de recherche",
    run: "Exécution",
    sources: (n) => `${n} sources`,
    accessed: (d) => `consulté le ${d}`,
    localDocument: "document local",
    claimCheck: "Vérification des affirmations",
    noClaims: "aucune affirmation citée à vérifier",
    lexicalCheck: "vérification lexicale",
    judgeModel: "modèle juge",
    citedClaims: (n) => `${n} affirmations citées`,
    supported: "étayées",
    partial: "partiellement étayées",
    unsupported: "non étayées",
    unchecked: "non vérifiées",
    revised: (n) => `${n} révisées`,
    dropped: (n) => `${n} retirées`,
  },
  es: {
    ...EN,
    references: "Referencias",
    conclusion: "Conclusión",
    overview: "Resumen",
    noMatches: "Ningún pasaje de sus documentos responde a la pregunta.",
    researchQuestion: "Pregunta de investigación",
    run: "Ejecución",
    sources: (n) => `${n} fuentes`,
    accessed: (d) => `consultado el ${d}`,
    localDocument: "documento local",
    claimCheck: "Verificación de afirmaciones",
    noClaims: "no hay afirmaciones citadas que verificar",
    lexicalCheck: "comprobación léxica",
    judgeModel: "modelo juez",
    citedClaims: (n) => `${n} afirmaciones citadas`,
    supported: "respaldadas",
    partial: "parcialmente respaldadas",
    unsupported: "sin respaldo",
    unchecked: "sin verificar",
    revised: (n) => `${n} revisadas`,
    dropped: (n) => `${n} eliminadas`,
  },
  pt: {
    ...EN,
    references: "Referências",
    conclusion: "Conclusão",
    overview: "Visão geral",
    noMatches: "Nenhum trecho dos seus documentos responde à pergunta.",
    researchQuestion: "Pergunta de pesquisa",
    run: "Execução",
    sources: (n) => `${n} fontes`,
    accessed: (d) => `acessado em ${d}`,
    localDocument: "documento local",
    claimCheck: "Verificação de afirmações",
    noClaims: "nenhuma afirmação citada para verificar",
    lexicalCheck: "verificação lexical",
    judgeModel: "modelo juiz",
    citedClaims: (n) => `${n} afirmações citadas`,
    supported: "sustentadas",
    partial: "parcialmente sustentadas",
    unsupported: "sem sustentação",
    unchecked: "não verificadas",
    revised: (n) => `${n} revisadas`,
    dropped: (n) => `${n} removidas`,
  },
  it: {
    ...EN,
    references: "Riferimenti",
    conclusion: "Conclusione",
    overview: "Panoramica",
    noMatches: "Nessun passaggio dei tuoi documenti risponde alla domanda.",
    researchQuestion: "Domanda di ricerca",
    run: "Esecuzione",
    sources: (n) => `${n} fonti`,
    accessed: (d) => `consultato il ${d}`,
    localDocument: "documento locale",
    claimCheck: "Verifica delle affermazioni",
    noClaims: "nessuna affermazione citata da verificare",
    lexicalCheck: "verifica lessicale",
    judgeModel: "modello giudice",
    citedClaims: (n) => `${n} affermazioni citate`,
    supported: "supportate",
    partial: "parzialmente supportate",
    unsupported: "non supportate",
    unchecked: "non verificate",
    revised: (n) => `${n} riviste`,
    dropped: (n) => `${n} rimosse`,
  },
  ru: {
    ...EN,
    references: "Источники",
    conclusion: "Заключение",
    overview: "Обзор",
    noMatches: "В ваших документах нет фрагментов, отвечающих на вопрос.",
    researchQuestion: "Исследовательский вопрос",
    run: "Запуск",
    sources: (n) => `источников: ${n}`,
    accessed: (d) => `дата обращения: ${d}`,
    localDocument: "локальный документ",
    claimCheck: "Проверка утверждений",
    noClaims: "нет утверждений со ссылками для проверки",
    lexicalCheck: "лексическая проверка",
    judgeModel: "модель-судья",
    citedClaims: (n) => `утверждений со ссылками: ${n}`,
    supported: "подтверждены",
    partial: "подтверждены частично",
    unsupported: "не подтверждены",
    unchecked: "не проверены",
    revised: (n) => `исправлено: ${n}`,
    dropped: (n) => `удалено: ${n}`,
  },
};

/** The languages with their own table. */
export const LABELLED_LANGUAGES: readonly string[] = Object.keys(TABLES);

/** The labels of `language` (a code such as `zh` or `fr-CA`); English without a table. */
export function reportLabels(language: string | undefined): ReportLabels {
  const code = (language ?? "en").toLowerCase().split(/[-_]/)[0]!;
  return TABLES[code] ?? EN;
}
