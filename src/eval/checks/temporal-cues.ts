/**
 * Lexical cues of the temporal check: predictive (future-tense) expressions, and attribution of
 * a prediction to a forecaster ("according to the IMF", "Gartner expects", "据IDC预测", "该公司预计").
 */

/** A cue found in a sentence. */
export interface CueMatch {
  text: string;
  index: number;
}

const EN_CUE = new RegExp(
  [
    "\\b(?:will|won't|shall)\\b(?!\\s+(?:of|power)\\b)",
    "\\b(?:is|are|'s|'re|remains?|seems?)\\s+(?:(?:also|now|still|widely|currently|generally)\\s+)?(?:expected|projected|forecast(?:ed)?|predicted|anticipated|estimated|likely|unlikely|poised|set|slated|scheduled|on track|going|due)\\s+to\\b(?!\\s+(?:the|a|an|its|their|this|that)\\b)",
    "(?<!\\b(?:was|were|been|had|being)\\s+)\\b(?:expected|projected|forecast(?:ed)?|predicted|anticipated|slated|poised)\\s+to\\b(?!\\s+(?:the|a|an)\\b)(?=\\s+\\w)",
    "\\b(?:expects?|predicts?|anticipates?)\\b",
    "\\bis\\s+(?:expected|projected|forecast(?:ed)?|predicted)\\b",
  ].join("|"),
  "gi",
);

const ZH_CUE =
  /(?<!曾|原|原本|此前|早先|当时|曾经|先前|之前)(?:预计|预期|预测|预估|有望|即将|届时|或将|将会|将要|计划|拟于|将(?=[\u4e00-\u9fff]{0,3}(?:达到|超过|突破|增长|增至|增加|下降|降至|减少|实现|推出|发布|上市|完成|成为|迎来|进入|保持|继续|提升|提高|扩大|投产|开通|落地|覆盖|占据|占比|翻番|翻倍|接近|升至|跌至|回升|放缓))|会(?=达到|超过|突破|增长|增至|下降|降至))/g;

/** Predictive cues of a sentence (English and Chinese), in order. */
export function findPredictiveCues(sentence: string): CueMatch[] {
  const out: CueMatch[] = [];
  for (const regex of [EN_CUE, ZH_CUE]) {
    regex.lastIndex = 0;
    for (let m = regex.exec(sentence); m !== null; m = regex.exec(sentence)) {
      out.push({ text: m[0].trim(), index: m.index });
    }
  }
  return out.sort((a, b) => a.index - b.index);
}

const EN_AGENT_NOUNS =
  "analysts?|economists?|experts?|researchers?|forecasters?|strategists?|observers?|consultanc(?:y|ies)|consultants?|firms?|compan(?:y|ies)|management|executives?|CEO|CFO|chairman|chairwoman|president|founder|spokes(?:person|man|woman)|government|ministry|ministers?|agency|agencies|institute|institution|banks?|regulators?|report|study|survey|outlook|officials?|authorit(?:y|ies)|group|manufacturer|automaker|carmaker|operator|developer|board|association|council|commission|department|bureau|organi[sz]ation|think[ -]tank|brokerage|research(?:ers)?";
const EN_VERBS_ACTIVE =
  "expects?|predicts?|forecasts?|anticipates?|estimates?|projects|believes?|says?|said|states|stated|notes|noted|reports|reported|announced|announces|plans?|planned|intends?|intended|aims?|aimed|guided|guides|targets?|targeted|told|wrote|writes|argued|argues|claimed|claims|warned|warns|suggested|suggests|predicted|anticipated|estimated|expected|projected|forecasted|outlined|indicated|indicates|stressed|believed|published|publishes|released|releases|issued|issues|predict|expect|anticipate|forecast|estimate|believe|say|plan|intend|aim|project";
const PRONOUNS =
  /^(?:it|this|that|these|those|there|we|they|our|its|such|some|many|most|he|she|i|you|in|on|at|by|for|if|as|the|a|an|and|but|while|however|meanwhile)$/i;

const EN_ACCORDING =
  /\b(?:according to|as (?:reported|forecast|predicted|projected|estimated|noted|stated|announced|expected) by|cited by|quoted by|in (?:its|their|his|her) (?:latest |annual |quarterly )?(?:report|forecast|outlook|guidance|statement|projections?|estimates?))\b/i;
const EN_PASSIVE_AGENT = new RegExp(
  `\\b(?:expected|projected|forecast(?:ed)?|predicted|anticipated|estimated|reported|stated|announced|guided|planned)\\s+by\\s+(?:the\\s+|a\\s+|an\\s+|its\\s+|many\\s+|some\\s+)?(?:${EN_AGENT_NOUNS}|[A-Z][\\w&.'-]*)\\b`,
);
const ADVERBS =
  "(?:(?:also|now|had|has|have|previously|currently|publicly|officially|originally|initially|reportedly|recently|then|further|still)\\s+)*";
/** An agent noun ("analysts", "the company") followed by a statement verb. */
const EN_LEXICON_SUBJECT = new RegExp(
  `()\\b(?:${EN_AGENT_NOUNS})\\s+${ADVERBS}(${EN_VERBS_ACTIVE})\\b`,
  "gi",
);
/** A capitalised name ("Goldman Sachs", "IDC") followed by a statement verb. */
const EN_NAMED_SUBJECT = new RegExp(
  `((?:[A-Z][\\w&.'’-]*)(?:\\s+(?:[A-Z][\\w&.'’-]*|&|of|de|and))*)\\s+${ADVERBS}(${EN_VERBS_ACTIVE})\\b`,
  "g",
);
const PARTICIPLES = /^(?:expected|projected|forecasted|predicted|anticipated|estimated)$/i;
const AUTHOR_YEAR = /\((?:[^()]*?[A-Za-z\u4e00-\u9fff][^()]*?,\s*)(?:19|20)\d{2}[a-z]?\)/;

const ZH_ORGS =
  "高盛|摩根士丹利|大摩|摩根大通|小摩|麦肯锡|德勤|普华永道|毕马威|安永|波士顿咨询|贝恩|埃森哲|国际货币基金组织|世界银行|经合组织|国际能源署|彭博|路透|野村|瑞银|花旗|中金|中信|华泰|乘联会|中汽协|工信部|发改委|国家统计局|统计局|央行|美联储|欧洲央行|联合国|世界卫生组织|艾瑞|易观|赛迪|信通院|前瞻产业研究院|头豹";
const ZH_AGENT_SUFFIX =
  "公司|集团|机构|银行|研究院|研究所|研究中心|协会|委员会|组织|分析师|经济学家|专家|学者|官方|管理层|政府|部门|署|局|部|厅|券商|证券|基金|智库|咨询|交易所|联盟|董事会|发言人|高管|首席执行官|总裁|董事长|创始人|CEO|报告|团队|厂商|车企|企业";
const ZH_VERBS =
  "预计|预测|预期|估计|预估|表示|称|指出|认为|披露|透露|宣布|发布|公布|计划|声称|强调|展望|判断|测算|显示|提出";
const ZH_ACCORDING = new RegExp(
  `(?:据|根据|援引|引述|按照)[^，。；,;]{0,30}?(?:${ZH_VERBS}|数据|报告|统计|研究|分析|消息|报道|预测)`,
);
const ZH_AGENT = new RegExp(
  `(?:${ZH_ORGS}|[A-Za-z][\\w&.-]+|[\\u4e00-\\u9fff]{0,12}?(?:${ZH_AGENT_SUFFIX}))\\s*(?:此前|曾|已|也|还|近日|日前|最新|在(?:其|最新)?[^，。；]{0,12}中)?\\s*(?:${ZH_VERBS})`,
);

const COMMON_OPENERS =
  /^(?:Revenue|Sales|Growth|Demand|Prices?|Output|Production|Deliveries|Shipments|Capacity|Adoption|Spending|Investment|Markets?|Profits?|Income|Costs?|Exports?|Imports?|Inflation|Unemployment|Supply|Volume|Penetration|Usage|Traffic|Emissions|Population|Share|Earlier|Later|Previous|Current|Global|Total)$/;
const MONTH_WORD =
  /^(?:January|February|March|April|May|June|July|August|September|October|November|December)$/;

/** Whether a capitalised subject names someone: not a pronoun, a month or an ordinary opening word. */
function namedSubject(subject: string, start: number, text: string): boolean {
  const words = subject.split(/\s+/);
  const first = words[0] ?? "";
  if (words.length === 1 && (PRONOUNS.test(first) || MONTH_WORD.test(first))) return false;
  const sentenceStart = /(?:^|[.!?。！？]\s+)$/.test(text.slice(0, start));
  return !(sentenceStart && words.length === 1 && COMMON_OPENERS.test(first));
}

/**
 * The phrase that attributes a prediction to a forecaster in `text` (one or a few sentences),
 * or null: "according to …", a passive agent ("forecast by the IMF"), an agent noun or a name
 * followed by a statement verb ("analysts expect", "Goldman Sachs said"), an author-year citation,
 * and the Chinese equivalents ("据…预测", "…公司预计").
 */
export function findAttribution(text: string): string | null {
  for (const regex of [EN_ACCORDING, EN_PASSIVE_AGENT, AUTHOR_YEAR, ZH_ACCORDING, ZH_AGENT]) {
    const m = regex.exec(text);
    if (m) return m[0].trim();
  }
  for (const regex of [EN_LEXICON_SUBJECT, EN_NAMED_SUBJECT]) {
    regex.lastIndex = 0;
    for (let m = regex.exec(text); m !== null; m = regex.exec(text)) {
      const after = text.slice(m.index + m[0].length);
      // "Tesla expected to deliver …" is a participle, not "Tesla expected (that) …".
      if (PARTICIPLES.test(m[2]!) && /^\s+to\b/.test(after)) continue;
      if (regex === EN_NAMED_SUBJECT && !namedSubject(m[1]!, m.index, text)) continue;
      return m[0].trim();
    }
  }
  return null;
}
