"""Finished pages made valid and lighter: a MkDocs hook (mkdocs.yml `hooks:`).

Material and mkdocs-jupyter write markup that the Nu Html Checker rejects, and more of it
than a reader's browser needs; the fixes are to markup only, and each says what it fixes.
tools/audit_pages.py (run by tests/website/test_audits.py) holds every page to it.

- Material's checkbox toggles lose autocomplete="off" (HTML allows it on text inputs).
- Pygments' <span> around names, whitespace, punctuation, operators and numbers, drawn in
  the code's own colour anyway (docs/stylesheets/extra.css), goes, as does the empty one
  opening each block: on a long chapter they were half a phone's style and layout work.
- Material's <span class="md-ellipsis"> around every navigation title (about fifty a
  page) goes: titles wrap instead. The header's two stay (a phone cuts the title there).
- Output blocks (a code block titled "Output", or "출력" in Korean: what a run printed) get Material's no-copy
  class: no copy button, which also tells them apart from code to run.
- Glossary terms (sitebuild/glossary.py) keep their <abbr> tooltip at a page's first use
  only (a long chapter carried dozens).
- Notebook pages (mkdocs-jupyter's template): a MathJax loader with an empty src and its
  configuration, a Mermaid loader that names a CDN (the notebooks have neither math nor
  diagrams), a <style> holding a Python list's repr (a CSS parse error), <style> elements
  in <body> (moved to <head>, in order), and copy buttons with a stray "," attribute and an
  aria-label that needs their role.

Two changes make a page's first screen cheaper on a phone (what Lighthouse's performance
audit times, at 4x CPU throttling):

- Each top-level h2's section, below its heading (the table of contents finds those), is
  wrapped in <div class="section-body">, laid out only near the screen (extra.css).
- Material's script (bundle.*.js, which Lighthouse counts as blocking) starts after the
  first frame, the no-JavaScript rendering Material designs for: its download starts at
  once (a preload link), and the loader hands it the DOMContentLoaded it waits for.
"""

from __future__ import annotations

import re

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

_CHECKBOX_AUTOCOMPLETE = re.compile(r'(<input\b[^>]*\btype="(?:checkbox|radio)"[^>]*?)\s+autocomplete="[^"]*"')
# A code block of pymdownx.highlight: <div class="language-python highlight"><pre>...</pre>
# (a block with a title has <span class="filename">title</span> before its <pre>)
_CODE_BLOCK = re.compile(r'(<div class="[^"]*(?<![\w-])highlight(?:-ipynb)?(?![\w-])[^"]*">\s*'
                         r'(?:<span class="filename">[^<]*</span>\s*)?<pre\b.*?</pre>)', re.S)
# An output block (```text title="Output", or "출력" on a Korean page): what a run printed.
_OUTPUT_BLOCK = re.compile(r'<div class="language-text highlight">(\s*<span class="filename">(?:Output|출력))')
# Tokens drawn in the code's own colour: names, whitespace, punctuation, operators, and
# integer and float literals (keywords, strings, comments and definitions keep theirs).
_PLAIN_TOKEN = re.compile(r'<span class="(?:n|w|p|o|mi|mf)">([^<]*)</span>')
_EMPTY_SPAN = re.compile(r"(<pre\b[^>]*>)<span></span>")  # what Pygments opens each block with
_ELLIPSIS = re.compile(r'<span class="md-ellipsis">((?:(?!</?span\b).)*)</span>', re.S)
_ABBR = re.compile(r'<abbr title="([^"]*)">([^<]*)</abbr>')

_EMPTY_SCRIPT = re.compile(r'(?:<!-- Load mathjax -->\s*)?<script src="">\s*</script>\s*')
_MATHJAX_CONFIG = re.compile(
    r'(?:<!-- MathJax configuration -->\s*)?<script type="text/x-mathjax-config">.*?</script>\s*'
    r'(?:<!-- End of mathjax configuration -->)?', re.S)
_MERMAID = re.compile(r'<script type="module">(?:(?!</script>).)*?jp-Mermaid.*?</script>\s*'
                      r'<style>\s*\.jp-Mermaid(?:(?!</style>).)*</style>\s*', re.S)
_LIST_REPR_STYLE = re.compile(r"<style>\s*\['.*?</style>\s*", re.S)
_CLIPBOARD_COPY = re.compile(r'<clipboard-copy\b([^>]*)>')
_BODY = re.compile(r"<body\b.*</body>", re.S)
_STYLE = re.compile(r"<style\b[^>]*>.*?</style>\s*", re.S)

_ARTICLE = re.compile(r"<article\b[^>]*>(.*?)</article>", re.S)
_TAG = re.compile(r"<!--.*?-->|<(/?)([a-zA-Z][\w-]*)\b[^>]*?(/?)>", re.S)
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# Material's base.html ends its body with its script: <script src="../assets/javascripts/bundle.1a2b3c4d.min.js">
MATERIAL_SCRIPT = re.compile(r'<script src="([^"]*assets/javascripts/bundle\.\w+\.min\.js)"></script>')
# Runs in the task after the first frame; `siteScriptsReady` tells the browser tests it ran.
_SCRIPT_LOADER = """<script>
requestAnimationFrame(() => setTimeout(() => {
  const script = document.createElement("script");
  script.src = "%s";
  script.onload = () => {
    document.dispatchEvent(new Event("DOMContentLoaded"));
    window.siteScriptsReady = true;
  };
  document.body.append(script);
}));
</script>"""


def _lighter_code(html: str) -> str:
    def lighter(match: re.Match) -> str:
        block = _EMPTY_SPAN.sub(r"\1", match.group(1))
        return _PLAIN_TOKEN.sub(r"\1", block)
    return _CODE_BLOCK.sub(lighter, html)


def _first_use_only(html: str) -> str:
    """Keep the <abbr> of each glossary definition at its first occurrence only."""
    seen: set[str] = set()

    def first(match: re.Match) -> str:
        if match.group(1) in seen:
            return match.group(2)
        seen.add(match.group(1))
        return match.group(0)
    return _ABBR.sub(first, html)


def _copy_button(match: re.Match) -> str:
    attributes = re.sub(r'\s*,(?:="")?', "", match.group(1))  # the template's stray comma
    if "role=" not in attributes:
        attributes += ' role="button" tabindex="0"'
    return f"<clipboard-copy{attributes}>"


def _notebook(html: str) -> str:
    html = _EMPTY_SCRIPT.sub("", html)
    html = _MATHJAX_CONFIG.sub("", html)
    if "jp-Mermaid" not in _MERMAID.sub("", html):  # no diagram on the page
        html = _MERMAID.sub("", html)
    html = _LIST_REPR_STYLE.sub("", html)
    # The element takes the role of a button when its script runs; say so in the markup.
    html = _CLIPBOARD_COPY.sub(_copy_button, html)
    if body := _BODY.search(html):
        if styles := _STYLE.findall(body.group(0)):
            rest = _STYLE.sub("", body.group(0))
            head_end = html.index("</head>")
            html = (html[:head_end] + "".join(styles) + html[head_end:body.start()]
                    + rest + html[body.end():])
    return html


def _top_level_h2s(content: str) -> list[int]:
    """Where each h2 that is a direct child of the article's content starts."""
    depth, starts = 0, []
    for tag in _TAG.finditer(content):
        closing, name, self_closing = tag.groups()
        if name is None or name.lower() in _VOID or self_closing:  # a comment, or no end tag
            continue
        if closing:
            depth -= 1
            continue
        if depth == 0 and name.lower() == "h2":
            starts.append(tag.start())
        depth += 1
    if depth != 0:
        raise ValueError(f"the article's tags do not balance ({depth:+d}), so its sections cannot be found")
    return starts


def _section_bodies(html: str) -> str:
    """Wrap what follows each top-level h2, up to the next, in <div class="section-body">."""
    if not (article := _ARTICLE.search(html)):
        return html
    content = article.group(1)
    starts = _top_level_h2s(content)
    pieces = [content[:starts[0]]] if starts else [content]
    for start, end in zip(starts, starts[1:] + [len(content)]):
        heading_end = content.index("</h2>", start) + len("</h2>")
        body = content[heading_end:end]
        pieces += [content[start:heading_end],
                   f'<div class="section-body">{body}</div>' if body.strip() else body]
    return html[:article.start(1)] + "".join(pieces) + html[article.end(1):]


def _script_after_first_frame(html: str) -> str:
    if not (script := MATERIAL_SCRIPT.search(html)):
        return html
    src = script.group(1)
    html = html[:script.start()] + _SCRIPT_LOADER % src + html[script.end():]
    return html.replace("</head>", f'<link rel="preload" href="{src}" as="script">\n</head>', 1)


def lighter_page(html: str, notebook: bool = False) -> str:
    """A finished page's HTML, valid and lighter (see the module's docstring)."""
    html = _CHECKBOX_AUTOCOMPLETE.sub(r"\1", html)
    html = _first_use_only(_lighter_code(html))
    header_end = html.find("</header>") + 1  # 0 where there is no header
    html = html[:header_end] + _ELLIPSIS.sub(lambda m: m.group(1).strip(), html[header_end:])
    html = _OUTPUT_BLOCK.sub(r'<div class="language-text highlight no-copy">\1', html)
    html = _script_after_first_frame(html)
    return _notebook(html) if notebook else _section_bodies(html)


@event_priority(-200)  # last: after mkdocs-jupyter and sitebuild/hook.py have written the page
def on_post_page(output, page, config):
    return _finished(output, page.file.src_uri, notebook=page.file.src_uri.endswith(".ipynb"))


def on_post_template(output_content, template_name, config):
    if template_name == "404.html":  # the one page MkDocs renders from a bare template
        return _finished(output_content, template_name)
    return output_content


def _finished(html: str, name: str, notebook: bool = False) -> str:
    """lighter_page, with a build error that names the page when a change cannot be made."""
    try:
        html = lighter_page(html, notebook)
    except ValueError as error:
        raise PluginError(f"sitebuild/page_markup.py: {name}: {error}") from None
    if "siteScriptsReady" not in html:
        raise PluginError(f"sitebuild/page_markup.py: {name} has no <script> that MATERIAL_SCRIPT matches "
                          "(Material's script, bundle.*.min.js): has Material's base.html changed?")
    return html
