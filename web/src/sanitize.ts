/**
 * The report HTML comes sanitized from the server; it is parsed inertly (DOMParser runs no
 * script and loads nothing) and checked again before it joins the page: only the body, no
 * active or embedding elements, no event handlers, inline styles or non-http(s) links, and no
 * remote images (the page's policy would refuse them; they become links).
 */

const DROP = new Set([
  "script",
  "style",
  "iframe",
  "frame",
  "object",
  "embed",
  "form",
  "link",
  "meta",
  "base",
  "template",
  "svg",
  "math",
  "input",
  "button",
  "textarea",
  "select",
]);
const URL_ATTRS = new Set(["href", "src", "xlink:href", "action", "formaction", "srcset"]);

/** A fragment of the report's body, safe to insert into the page. */
export function importReportBody(html: string, doc: Document): DocumentFragment {
  // Only the body: the report's own head (its stylesheet and policy) is not the page's.
  const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html.replace(/<head[\s\S]*?<\/head>/i, "");
  const parsed = new DOMParser().parseFromString(`<!doctype html><body>${body}</body>`, "text/html");
  // Cleaned while still in the inert document: nothing reaches the page unchecked.
  clean(parsed.body, parsed);
  const fragment = doc.createDocumentFragment();
  for (const child of Array.from(parsed.body.childNodes)) fragment.append(doc.importNode(child, true));
  return fragment;
}

function clean(root: ParentNode, doc: Document): void {
  for (const el of Array.from(root.querySelectorAll("*"))) {
    const tag = el.localName;
    if (DROP.has(tag)) {
      el.remove();
      continue;
    }
    for (const attr of Array.from(el.attributes)) {
      const name = attr.name.toLowerCase();
      if (name.startsWith("on") || name === "style") el.removeAttribute(attr.name);
      else if (URL_ATTRS.has(name)) {
        const value = attr.value.trim();
        const ok = value.startsWith("#") || /^https?:\/\//i.test(value);
        if (!ok || tag === "img" || name === "srcset") el.removeAttribute(attr.name);
      }
    }
    // The report's own landmarks would compete with the page's.
    if (tag === "main" || tag === "header" || tag === "footer" || tag === "nav") {
      const div = doc.createElement("div");
      div.append(...Array.from(el.childNodes));
      el.replaceWith(div);
      continue;
    }
    if (tag === "img") el.replaceWith(doc.createTextNode(`[${el.getAttribute("alt") || "image"}]`));
    if (tag === "a" && /^https?:/i.test(el.getAttribute("href") ?? "")) {
      el.setAttribute("rel", "noopener noreferrer");
      el.setAttribute("target", "_blank");
    }
  }
}
