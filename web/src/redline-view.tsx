/** A refresh's Markdown redline on the page: removed text struck through, added text marked, all as text. */

import type { JSX } from "preact";
import { parseRedline, type RedlineInline } from "./redline.ts";

function Inline(props: { parts: RedlineInline[] }) {
  return (
    <>
      {props.parts.map((p, i) => {
        const key = `${i}-${p.kind}`;
        if (p.kind === "removed") return <del key={key}>{p.text}</del>;
        if (p.kind === "added") return <ins key={key}>{p.text}</ins>;
        if (p.kind === "link")
          return (
            <a key={key} href={p.href} rel="noopener noreferrer" target="_blank">
              {p.text}
            </a>
          );
        return <span key={key}>{p.text}</span>;
      })}
    </>
  );
}

/** The redline's blocks: its headings one level under the page's (h3, h4), items grouped in lists. */
export function RedlineView(props: { markdown: string }) {
  const blocks = parseRedline(props.markdown);
  const out: JSX.Element[] = [];
  let items: JSX.Element[] = [];
  const flush = () => {
    if (items.length) out.push(<ul key={`ul-${out.length}`}>{items}</ul>);
    items = [];
  };
  blocks.forEach((b, i) => {
    const key = `b-${i}`;
    if (b.kind === "item") {
      items.push(
        <li key={key}>
          <Inline parts={b.parts} />
        </li>,
      );
      return;
    }
    flush();
    if (b.kind === "heading") {
      const H = b.level === 1 ? "h3" : "h4";
      out.push(
        <H key={key}>
          <Inline parts={b.parts} />
        </H>,
      );
    } else
      out.push(
        <p key={key}>
          <Inline parts={b.parts} />
        </p>,
      );
  });
  flush();
  return (
    <div class="redline" data-testid="redline">
      {out}
    </div>
  );
}
