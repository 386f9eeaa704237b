"""sitebuild/page_markup.py: the markup fixes, each on the smallest page that needs it."""

import page_markup
import pytest
from mkdocs.exceptions import PluginError


def test_checkboxes_lose_autocomplete_and_text_inputs_keep_it():
    html = ('<input class="md-toggle" type="checkbox" id="__drawer" autocomplete="off">'
            '<input type="text" class="md-search__input" autocomplete="off">')
    out = page_markup.lighter_page(html)
    assert '<input class="md-toggle" type="checkbox" id="__drawer">' in out
    assert '<input type="text" class="md-search__input" autocomplete="off">' in out


def test_plain_tokens_of_code_blocks_become_text_and_the_text_is_unchanged():
    code = ('<div class="language-python highlight"><pre><span></span><code>'
            '<span class="n">x</span><span class="w"> </span><span class="o">=</span>'
            '<span class="w"> </span><span class="n">f</span><span class="p">(</span>'
            '<span class="mi">1</span><span class="p">)</span>  <span class="c1"># one</span>\n'
            '</code></pre></div>')
    out = page_markup.lighter_page(code)
    assert '<pre><code>x = f(1)  <span class="c1"># one</span>' in out
    # A notebook cell's code (mkdocs-jupyter's highlight-ipynb) loses the same spans.
    notebook = code.replace("language-python highlight", "highlight-ipynb")
    assert '<pre><code>x = f(1)' in page_markup.lighter_page(notebook)
    # Code outside a highlighted block keeps its spans.
    other = code.replace("language-python highlight", "listing")
    assert page_markup.lighter_page(other) == other


def test_notebook_pages_lose_dead_loaders_and_keep_styles_in_head():
    html = ('<html><head><title>t</title></head><body><div>'
            '<style type="text/css">.a{color:red}</style>\n'
            '<!-- Load mathjax -->\n<script src=""> </script>\n<!-- MathJax configuration -->\n'
            '<script type="text/x-mathjax-config">init()</script>\n<!-- End of mathjax configuration -->'
            '<script type="module">document.querySelectorAll(".jp-Mermaid > pre.mermaid")</script>\n'
            '<style>\n  .jp-Mermaid:not(.jp-RenderedMermaid) {display: none;}\n</style>\n'
            '<clipboard-copy ,="" aria-label="Copy to Clipboard" for="cell-1"></clipboard-copy>'
            "<style>\n['pre { line-height: 125%; }']\n</style>"
            '</div></body></html>')
    out = page_markup.lighter_page(html, notebook=True)
    head, body = out.split("</head>")
    assert '<style type="text/css">.a{color:red}</style>' in head and "<style" not in body
    for gone in ('src=""', "mathjax", "jp-Mermaid", "['pre", ',=""'):
        assert gone not in out, gone
    assert '<clipboard-copy aria-label="Copy to Clipboard" for="cell-1" role="button" tabindex="0">' in out


def test_each_top_level_section_below_its_heading_is_wrapped_and_nothing_else_moves():
    article = ('<h1 id="t">Title</h1><p>Answer first.</p><!-- <h2>not a heading</h2> -->'
               '<h2 id="a">A</h2><p>One<br>line</p><img src="f.svg" alt="f">'
               '<div class="admonition"><h2 id="inner">Inside a box</h2><p>stays</p></div>'
               '<h2 id="b">B</h2><h3 id="b1">B.1</h3><p>Two</p>'
               '<h2 id="empty">Empty</h2>')
    html = f'<html><head></head><body><article class="md-content__inner md-typeset">{article}</article></body></html>'
    out = page_markup.lighter_page(html)
    assert out.count('<div class="section-body">') == 2
    assert ('<p>Answer first.</p><!-- <h2>not a heading</h2> --><h2 id="a">A</h2><div class="section-body">'
            '<p>One<br>line</p><img src="f.svg" alt="f"><div class="admonition"><h2 id="inner">Inside a box</h2>'
            '<p>stays</p></div></div><h2 id="b">B</h2><div class="section-body"><h3 id="b1">B.1</h3><p>Two</p>'
            '</div><h2 id="empty">Empty</h2></article>') in out
    assert page_markup.lighter_page(html, notebook=True) == html  # a notebook's cells have their own rule
    broken = html.replace("</div><h2 id=\"b\">", '<h2 id="b">')
    with pytest.raises(ValueError, match="do not balance"):
        page_markup.lighter_page(broken)


def test_materials_script_starts_after_the_first_frame_and_is_fetched_at_once():
    src = "../assets/javascripts/bundle.a5f9d56c.min.js"
    html = f'<html><head><title>t</title></head><body><p>x</p><script src="{src}"></script></body></html>'
    out = page_markup.lighter_page(html)
    head, body = out.split("</head>")
    assert f'<link rel="preload" href="{src}" as="script">' in head
    assert f'<script src="{src}">' not in out and f'script.src = "{src}";' in body
    assert "requestAnimationFrame(() => setTimeout(" in body and 'new Event("DOMContentLoaded")' in body


def test_a_page_without_materials_script_fails_the_build_with_its_name(tmp_path):
    with pytest.raises(PluginError, match=r"jit\.md has no <script> that MATERIAL_SCRIPT matches"):
        page_markup._finished("<html><head></head><body><script src='bundle.js'></script></body></html>",
                              "jit.md")


def test_navigation_titles_lose_their_ellipsis_span_and_the_headers_keep_it():
    header = '<header><div class="md-header__topic"><span class="md-ellipsis">A long chapter title</span></div></header>'
    nav = '<nav><a class="md-nav__link"><span class="md-ellipsis">\n  Home\n</span></a></nav>'
    out = page_markup.lighter_page(header + nav)
    assert out == header + '<nav><a class="md-nav__link">Home</a></nav>'
