/**
 * The report view: the server's sanitized report HTML, parsed inertly and re-checked here
 * (no script, handlers, styles or remote images), with citations whose hover or focus shows
 * the cited excerpt, the source's title and a link; claim marks (a verified report's) whose hover
 * or focus shows the verdict, its reason and the deciding passage span; the References list; the
 * grounded share and the claim check's shares; downloads in every format the run has.
 */

import { useEffect, useRef, useState } from "preact/hooks";
import { apiText } from "./api.ts";
import { type CitationInfo, citationIndex, type ReportBundle } from "./citations.ts";
import {
  type BundleClaims,
  type ClaimTip,
  type ClaimVerdict,
  claimSharesText,
  claimTip,
  upgradeClaimMarks,
  VERDICT_LABELS,
} from "./claim-marks.ts";
import { languageTag, reportPageLanguage } from "./report-lang.ts";
import { importReportBody } from "./sanitize.ts";
import "./claims.css";

/** How the downloads name each report format. */
const FORMAT_LABELS: Record<string, string> = {
  md: "Markdown",
  html: "HTML",
  json: "JSON",
  pdf: "PDF",
  docx: "Word (DOCX)",
};

export function Report(props: {
  runId: string;
  reports: Record<string, string>;
  /** Told the report's reference numbers once its bundle is read. */
  onReferences?: (numbers: ReadonlySet<number>) => void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const [citations, setCitations] = useState<Map<number, CitationInfo>>(new Map());
  const [grounded, setGrounded] = useState<number | null>(null);
  const [claims, setClaims] = useState<BundleClaims | null>(null);
  const marks = useRef<{ verdict: ClaimVerdict; title: string }[]>([]);
  const [tip, setTip] = useState<{ n: number; top: number; left: number; claim?: ClaimTip } | null>(null);
  const [error, setError] = useState("");
  // The report's own language, so the fragment is read (and hyphenated) in it, not the page's.
  const [lang, setLang] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    const html = props.reports.html;
    const json = props.reports.json;
    // A run that wrote Markdown only (the CLI's default) is shown as its text.
    const md = html ? undefined : props.reports.md;
    void (async () => {
      try {
        const [text, bundleText, mdText] = await Promise.all([
          html ? apiText(html) : Promise.resolve(""),
          json ? apiText(json) : Promise.resolve(""),
          md ? apiText(md) : Promise.resolve(""),
        ]);
        if (!live || !host.current) return;
        setLang(reportPageLanguage(text));
        if (mdText) {
          const pre = document.createElement("pre");
          pre.className = "report-md";
          pre.textContent = mdText;
          host.current.replaceChildren(pre);
        } else {
          const body = importReportBody(text, document);
          marks.current = upgradeClaimMarks(body, document);
          host.current.replaceChildren(body);
        }
        if (bundleText) {
          const bundle = JSON.parse(bundleText) as ReportBundle;
          setLang((page) => page ?? languageTag(bundle.language));
          setCitations(citationIndex(bundle));
          props.onReferences?.(new Set(bundle.references.map((r) => r.number)));
          setGrounded(bundle.checks?.groundedShare ?? null);
          setClaims(bundle.claims ?? null);
        }
      } catch (e) {
        if (live) setError((e as Error).message);
      }
    })();
    return () => {
      live = false;
    };
  }, [props.runId, props.reports.html, props.reports.json]);

  const claimsRef = useRef<BundleClaims | null>(null);
  claimsRef.current = claims;
  const show = (target: EventTarget | null) => {
    const a = (target as Element | null)?.closest?.("a.cite, button.claim");
    if (!(a instanceof HTMLElement) || !host.current?.contains(a)) return;
    const box = a.getBoundingClientRect();
    const frame = host.current.getBoundingClientRect();
    a.setAttribute("aria-describedby", "cite-tip");
    const place = { top: box.bottom - frame.top + 6, left: Math.max(0, box.left - frame.left - 40) };
    const mark = a.dataset.mark === undefined ? undefined : marks.current[Number(a.dataset.mark)];
    if (mark) {
      const index = a.dataset.claim === undefined ? null : Number(a.dataset.claim);
      setTip({ n: 0, ...place, claim: claimTip(mark, index, claimsRef.current) });
    } else setTip({ n: Number(a.textContent), ...place });
  };
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const over = (e: Event) => show(e.target);
    const out = (e: Event) => {
      if ((e.target as Element).closest?.("a.cite, button.claim")) setTip(null);
    };
    const hide = () => setTip(null);
    const key = (e: KeyboardEvent) => {
      if (e.key === "Escape") setTip(null);
    };
    el.addEventListener("mouseover", over);
    el.addEventListener("focusin", over);
    el.addEventListener("mouseout", out);
    el.addEventListener("focusout", hide);
    el.addEventListener("keydown", key);
    return () => {
      el.removeEventListener("mouseover", over);
      el.removeEventListener("focusin", over);
      el.removeEventListener("mouseout", out);
      el.removeEventListener("focusout", hide);
      el.removeEventListener("keydown", key);
    };
  }, []);
  const info = tip ? citations.get(tip.n) : undefined;

  return (
    <section aria-labelledby="report-h" class="report-wrap">
      <h2 id="report-h">Report</h2>
      <p class="downloads">
        Downloads:{" "}
        {Object.entries(props.reports).map(([format, href]) => (
          <a key={format} href={href} download={`${props.runId}.${format}`} class="chip">
            {FORMAT_LABELS[format] ?? format}
          </a>
        ))}
        {grounded !== null && <span class="hint"> · grounded share {Math.round(grounded * 100)}%</span>}
      </p>
      {claims && (
        <p class="claim-shares" data-testid="claim-shares">
          Claim check ({claims.mode === "check" ? "lexical check" : "judge model"}): {claimSharesText(claims)}
        </p>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <div class="report-box">
        <div class="report" ref={host} data-testid="report" lang={lang ?? undefined} />
        {tip && (
          <div
            id="cite-tip"
            role="tooltip"
            class="cite-tip"
            style={{ top: `${tip.top}px`, left: `${tip.left}px` }}
          >
            {tip.claim ? (
              <ClaimTipBody tip={tip.claim} />
            ) : (
              <>
                <div class="tip-title">
                  [{tip.n}] {info?.title ?? "Source"}
                </div>
                {info?.excerpt ? (
                  <blockquote>{info.excerpt}</blockquote>
                ) : (
                  <p class="hint">No excerpt recorded.</p>
                )}
                {info?.url && (
                  <a href={info.url} rel="noopener noreferrer" target="_blank">
                    {info.url}
                  </a>
                )}
              </>
            )}
          </div>
        )}
      </div>
    </section>
  );
}

/** A claim mark's tooltip: verdict, the claim, why, and the passage span that decides it (all as text). */
function ClaimTipBody(props: { tip: ClaimTip }) {
  const { tip } = props;
  return (
    <>
      <div class={`tip-title verdict-${tip.verdict}`}>{VERDICT_LABELS[tip.verdict]} claim</div>
      {tip.claim && <p class="tip-claim">{tip.claim}</p>}
      {tip.reason && <p class="hint">{tip.reason}</p>}
      {tip.span ? (
        <blockquote data-testid="claim-span">{tip.span}</blockquote>
      ) : (
        tip.claim && <p class="hint">No passage span decides it.</p>
      )}
      {tip.fallback && <p>{tip.fallback}</p>}
    </>
  );
}
